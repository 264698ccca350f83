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
