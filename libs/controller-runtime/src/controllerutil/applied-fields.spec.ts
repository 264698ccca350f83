import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../object.js';
import { droppedAppliedFields } from './applied-fields.js';
import { applyIfChanged } from './apply-if-changed.js';

// A controller that stops setting a field must apply again: server-side apply removes what its manager no
// longer applies, but "live has everything desired says" alone would call that world unchanged.

const desired = (resources?: object): KubeObject & { spec: object } => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'ns' },
  spec: {
    replicas: 2,
    template: {
      spec: {
        containers: [
          {
            name: 'web',
            image: 'web:1',
            args: ['--a'],
            ports: [{ containerPort: 8080 }],
            ...(resources ? { resources } : {}),
          },
        ],
      },
    },
  },
});

/** What the API server holds after `manager` applied `desired({ limits: { cpu: '100m' } })`. */
function liveAfterApplyingLimits(manager: string): KubeObject {
  const live = desired({ limits: { cpu: '100m' } });
  live.metadata.managedFields = [
    {
      manager,
      operation: 'Apply',
      apiVersion: 'apps/v1',
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:spec': {
          'f:replicas': {},
          'f:template': {
            'f:spec': {
              'f:containers': {
                'k:{"name":"web"}': {
                  '.': {},
                  'f:name': {},
                  'f:image': {},
                  'f:args': {},
                  'f:ports': {
                    'k:{"containerPort":8080,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} },
                  },
                  'f:resources': { 'f:limits': { 'f:cpu': {} } },
                },
              },
            },
          },
        },
      },
    },
    {
      manager: 'kube-controller-manager',
      operation: 'Update',
      subresource: 'status',
      fieldsV1: { 'f:status': {} },
    },
  ];
  return live;
}

describe('droppedAppliedFields', () => {
  it('names the fields the manager applied before and desired no longer sets', () => {
    expect(droppedAppliedFields(liveAfterApplyingLimits('op'), desired(), 'op')).toEqual([
      '.spec.template.spec.containers[{"name":"web"}].resources',
    ]);
    expect(droppedAppliedFields(liveAfterApplyingLimits('op'), desired({ limits: {} }), 'op')).toEqual([
      '.spec.template.spec.containers[{"name":"web"}].resources.limits.cpu',
    ]);
  });

  it('finds nothing when desired still sets every applied field (a defaulted list key matches), or for other managers', () => {
    expect(
      droppedAppliedFields(liveAfterApplyingLimits('op'), desired({ limits: { cpu: '1' } }), 'op'),
    ).toEqual([]);
    expect(droppedAppliedFields(liveAfterApplyingLimits('someone-else'), desired(), 'op')).toEqual([]);
    expect(droppedAppliedFields(desired(), desired(), 'op')).toEqual([]);
  });
});

// Objects as an operator applies them: maps, lists of maps keyed by `name`, and sets of strings.
type Applied = string | number | boolean | readonly Applied[] | { readonly [key: string]: Applied };
const { object: appliedObject } = fc.letrec<{ node: Applied; object: Record<string, Applied> }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean()),
    tie('object'),
    fc.uniqueArray(
      fc.tuple(fc.constantFrom('x', 'y', 'z'), tie('object')).map(([name, rest]) => ({ ...rest, name })),
      { selector: (element) => element.name, maxLength: 3 },
    ),
    fc.uniqueArray(fc.constantFrom('p', 'q', 'r'), { maxLength: 3 }),
  ),
  object: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), tie('node'), { maxKeys: 3 }),
}));

/** The field set server-side apply records for `value`, as the API server writes it. */
function fieldsOf(value: Applied): Record<string, unknown> {
  if (typeof value !== 'object') return {};
  if (!Array.isArray(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [`f:${k}`, fieldsOf(v)]));
  }
  return Object.fromEntries(
    value.map((element) =>
      typeof element === 'object' && !Array.isArray(element)
        ? [`k:${JSON.stringify({ name: element.name })}`, { '.': {}, ...fieldsOf(element) }]
        : [`v:${JSON.stringify(element)}`, {}],
    ),
  );
}

/**
 * Each field or list element of `value` that an apply without it would remove: its path, and `value` without
 * it.
 */
function removals(value: Applied, path = ''): { path: string; without: Applied }[] {
  if (typeof value !== 'object') return [];
  if (Array.isArray(value)) {
    return value.flatMap((element, i) => {
      const key =
        typeof element === 'object' && !Array.isArray(element)
          ? JSON.stringify({ name: element.name })
          : JSON.stringify(element);
      const at = `${path}[${key}]`;
      const replace = (next: Applied) => value.map((e, j) => (j === i ? next : e));
      return [
        { path: at, without: value.filter((_, j) => j !== i) },
        ...removals(element, at)
          .filter((r) => !r.path.endsWith(`${at}.name`))
          .map((r) => ({ path: r.path, without: replace(r.without) })),
      ];
    });
  }
  const map = value as { readonly [key: string]: Applied };
  return Object.entries(map).flatMap(([k, v]) => {
    const at = `${path}.${k}`;
    const { [k]: _, ...rest } = map;
    return [
      { path: at, without: rest },
      ...removals(v, at).map((r) => ({ path: r.path, without: { ...map, [k]: r.without } })),
    ];
  });
}

const applied = (spec: Record<string, Applied>): KubeObject & { spec: Record<string, Applied> } => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: {
    name: 'w',
    managedFields: [{ manager: 'op', operation: 'Apply', fieldsV1: { 'f:spec': fieldsOf(spec) } }],
  },
  spec,
});

describe('droppedAppliedFields, over generated objects', () => {
  it('finds nothing while desired sets everything applied, and exactly the one field or element it leaves out', () => {
    fc.assert(
      fc.property(appliedObject, fc.nat(), (spec, pick) => {
        const live = applied(spec);
        expect(droppedAppliedFields(live, { ...live, metadata: { name: 'w' } }, 'op')).toEqual([]);
        const all = removals(spec, '.spec');
        const removal = all[pick % Math.max(all.length, 1)];
        if (removal === undefined) return;
        const desired = { ...live, metadata: { name: 'w' }, spec: removal.without };
        expect(droppedAppliedFields(live, desired, 'op')).toEqual([removal.path]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('applyIfChanged', () => {
  const client = () => {
    const applied: KubeObject[] = [];
    return { applied, fieldManager: 'op', apply: async (obj: KubeObject) => applied.push(obj) };
  };

  it('applies when the controller stopped setting a field it applied before, so the apply removes it', async () => {
    const c = client();
    expect(await applyIfChanged(c, desired(), liveAfterApplyingLimits('op'))).toBe('updated');
    expect(c.applied).toEqual([desired()]);
  });

  it('leaves a converged object alone, and fields other managers set', async () => {
    const c = client();
    expect(await applyIfChanged(c, desired({ limits: { cpu: '0.1' } }), liveAfterApplyingLimits('op'))).toBe(
      'unchanged',
    );
    expect(await applyIfChanged(c, desired(), liveAfterApplyingLimits('kubectl'))).toBe('unchanged');
    expect(c.applied).toEqual([]);
  });
});
