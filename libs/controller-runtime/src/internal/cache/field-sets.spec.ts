import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FieldSetTable } from './field-sets.js';
import { stripManagedFields } from './informer.js';

/** The field set a manager's apply of one Deployment records; only the owner's UID differs between objects. */
function deploymentFieldSet(ownerUid: string): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify({
      'f:metadata': {
        'f:labels': { 'f:app.kubernetes.io/name': {}, 'f:app.kubernetes.io/instance': {} },
        'f:ownerReferences': { [`k:{"uid":"${ownerUid}"}`]: { '.': {}, 'f:controller': {}, 'f:uid': {} } },
      },
      'f:spec': {
        'f:replicas': {},
        'f:template': {
          'f:spec': {
            'f:containers': {
              'k:{"name":"memcached"}': {
                '.': {},
                'f:image': {},
                'f:ports': { 'k:{"containerPort":11211}': {} },
              },
            },
          },
        },
      },
    }),
  );
}

type FieldSet = { [key: string]: FieldSet };

/** Field sets as the API server writes them, with keys of every form and a few that are not keys at all. */
const fieldSets: fc.Arbitrary<FieldSet> = fc.letrec<{ set: FieldSet }>((tie) => ({
  set: fc.dictionary(
    fc.oneof(
      fc.constantFrom('.', 'f:a', 'f:b', 'k:{"name":"x"}', 'v:"y"', 'i:0', '__proto__', 'constructor'),
      fc.string(),
    ),
    fc.oneof({ depthSize: 'small' }, fc.constant({}), tie('set')),
    { maxKeys: 4 },
  ),
})).set;

describe('FieldSetTable', () => {
  it('GIVEN the field sets of two objects one manager applied WHEN shared THEN their equal subtrees are one frozen object', () => {
    const table = new FieldSetTable();
    const a = table.share(deploymentFieldSet('uid-a'));
    const b = table.share(deploymentFieldSet('uid-b'));

    expect(a).toEqual(deploymentFieldSet('uid-a'));
    expect(b).toEqual(deploymentFieldSet('uid-b'));
    expect(b['f:spec']).toBe(a['f:spec']);
    const metadata = (set: Record<string, unknown>) => set['f:metadata'] as Record<string, unknown>;
    expect(metadata(b)['f:labels']).toBe(metadata(a)['f:labels']);
    expect(metadata(b)['f:ownerReferences']).not.toBe(metadata(a)['f:ownerReferences']);
    expect(Object.isFrozen(a) && Object.isFrozen(a['f:spec'])).toBe(true);
  });

  it('GIVEN any field sets WHEN shared THEN each comes back as the same JSON, key order included', () => {
    const table = new FieldSetTable({ maxEntries: 16 });
    fc.assert(
      fc.property(fc.array(fieldSets, { minLength: 1, maxLength: 8 }), (sets) => {
        const texts = sets.map((set) => JSON.stringify(set));
        const shared = sets.map((set) => table.share(set));
        expect(shared.map((set) => JSON.stringify(set))).toEqual(texts);
        for (const set of shared) expect(Object.isFrozen(set)).toBe(true);
        expect(table.size).toBeLessThanOrEqual(16);
      }),
    );
  });

  it('GIVEN more distinct subtrees than the table holds WHEN shared THEN it stays bounded and still shares afterwards', () => {
    const table = new FieldSetTable({ maxEntries: 50 });
    for (let i = 0; i < 200; i++) table.share(deploymentFieldSet(`uid-${i}`));
    expect(table.size).toBeLessThanOrEqual(50);

    const a = table.share(deploymentFieldSet('uid-x'));
    const b = table.share(deploymentFieldSet('uid-y'));
    expect(b['f:spec']).toBe(a['f:spec']);
  });

  it('GIVEN what is not a field set WHEN shared THEN it comes back unchanged', () => {
    const table = new FieldSetTable();
    const frozen = Object.freeze({ 'f:a': {} });
    for (const value of [null, 'f:a', 3, [{ 'f:a': {} }], frozen]) expect(table.share(value)).toBe(value);

    const withScalar = { 'f:a': 'not a set', 'f:b': { 'f:c': {} } };
    expect(JSON.stringify(table.share(withScalar))).toBe('{"f:a":"not a set","f:b":{"f:c":{}}}');
  });
});

describe('stripManagedFields', () => {
  it('GIVEN two objects the same manager applied WHEN stripped THEN their kept entries share the field set in common', () => {
    const applied = (uid: string) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: uid,
        namespace: 'ns',
        managedFields: [
          { manager: 'op', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: deploymentFieldSet(uid) },
          { manager: 'kube-controller-manager', operation: 'Update', subresource: 'status', fieldsV1: {} },
        ],
      },
    });
    const fieldSet = (obj: ReturnType<typeof applied>) =>
      (obj.metadata.managedFields as { fieldsV1: Record<string, unknown> }[])[0]?.fieldsV1 ?? {};

    const a = stripManagedFields(applied('a'));
    const b = stripManagedFields(applied('b'));

    expect(a.metadata.managedFields).toEqual([
      { manager: 'op', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: deploymentFieldSet('a') },
    ]);
    expect(fieldSet(b)['f:spec']).toBe(fieldSet(a)['f:spec']);
  });
});
