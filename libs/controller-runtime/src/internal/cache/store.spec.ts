import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject, OwnerReference } from '../../object.js';
import { InvalidSelectorError, parseLabelSelector } from './label-selector.js';
import { deepFreeze, OWNER_UID_INDEX, readOnlyStore, Store } from './store.js';

interface Pod extends KubeObject {
  spec: { nodeName?: string; containers: { name: string }[] };
}

function owner(uid: string): OwnerReference {
  return { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `rs-${uid}`, uid, controller: true };
}

function pod(
  name: string,
  more: {
    namespace?: string;
    labels?: Record<string, string>;
    owners?: string[];
    node?: string;
    resourceVersion?: string;
  } = {},
): Pod {
  const { namespace = 'default', labels, owners, node, resourceVersion = '1' } = more;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      ...(namespace ? { namespace } : {}),
      uid: `uid-${name}`,
      resourceVersion,
      ...(labels ? { labels } : {}),
      ...(owners ? { ownerReferences: owners.map(owner) } : {}),
    },
    spec: { ...(node ? { nodeName: node } : {}), containers: [{ name: 'main' }] },
  };
}

const names = (objects: KubeObject[]) => objects.map((o) => o.metadata.name).sort();
const byNode = (p: Pod) => (p.spec.nodeName ? [p.spec.nodeName] : []);

describe('Store basics', () => {
  it('GIVEN an empty store WHEN objects are upserted THEN get finds them by namespace/name (name alone when cluster-scoped) and upsert returns the previous version', () => {
    const store = new Store<Pod>();

    expect(store.upsert(pod('a'))).toBeUndefined();
    expect(store.upsert(pod('node-level', { namespace: '' }))).toBeUndefined();
    const v2 = pod('a', { resourceVersion: '2' });
    const previous = store.upsert(v2);

    expect(previous?.metadata.resourceVersion).toBe('1');
    expect(store.get('default/a')).toBe(v2);
    expect(store.get('node-level')?.metadata.name).toBe('node-level');
    expect(store.get('a')).toBeUndefined();
    expect(store.size).toBe(2);
  });

  it('GIVEN a stored object WHEN it is deleted THEN delete returns it and it is gone; deleting again returns undefined', () => {
    const store = new Store<Pod>();
    const a = pod('a');
    store.upsert(a);

    expect(store.delete('default/a')).toBe(a);
    expect(store.get('default/a')).toBeUndefined();
    expect(store.size).toBe(0);
    expect(store.delete('default/a')).toBeUndefined();
  });

  it('GIVEN an upserted object THEN it is deep-frozen: changing it, its nested objects or arrays throws', () => {
    const store = new Store<Pod>();
    store.upsert(pod('a', { labels: { app: 'web' }, owners: ['o1'] }));
    const stored = store.get('default/a')!;

    expect(Object.isFrozen(stored)).toBe(true);
    expect(() => {
      stored.metadata.name = 'b';
    }).toThrow(TypeError);
    expect(() => {
      stored.metadata.labels!.app = 'db';
    }).toThrow(TypeError);
    expect(() => {
      stored.metadata.ownerReferences!.push(owner('o2'));
    }).toThrow(TypeError);
    expect(() => {
      stored.spec.containers[0]!.name = 'sidecar';
    }).toThrow(TypeError);
    expect(stored.metadata.labels).toEqual({ app: 'web' });
    expect(stored.spec.containers).toEqual([{ name: 'main' }]);
  });

  it('GIVEN deepFreeze THEN it returns its argument and leaves primitives and null alone', () => {
    const value = { a: { b: [1, { c: 2 }] } };
    expect(deepFreeze(value)).toBe(value);
    expect(Object.isFrozen(value.a.b[1])).toBe(true);
    expect(deepFreeze(null)).toBeNull();
    expect(deepFreeze(3)).toBe(3);
  });
});

describe('Store namespaces', () => {
  it('GIVEN objects in several namespaces THEN values() lists all and values(ns) only that namespace', () => {
    const store = new Store<Pod>();
    store.upsert(pod('a', { namespace: 'ns1' }));
    store.upsert(pod('b', { namespace: 'ns1' }));
    store.upsert(pod('c', { namespace: 'ns2' }));
    store.upsert(pod('cluster-wide', { namespace: '' }));

    expect(names(store.values())).toEqual(['a', 'b', 'c', 'cluster-wide']);
    expect(names(store.values('ns1'))).toEqual(['a', 'b']);
    expect(names(store.values('ns2'))).toEqual(['c']);
    expect(store.values('ns3')).toEqual([]);
  });

  it('GIVEN a deleted object THEN values(ns) no longer lists it', () => {
    const store = new Store<Pod>();
    store.upsert(pod('a', { namespace: 'ns1' }));
    store.upsert(pod('b', { namespace: 'ns1' }));

    store.delete('ns1/a');

    expect(names(store.values('ns1'))).toEqual(['b']);
  });
});

describe('Store indexes', () => {
  it('GIVEN objects with owner references THEN the owner-UID index finds the children of each owner, and follows updates and deletes', () => {
    const store = new Store<Pod>();
    store.upsert(pod('a', { owners: ['o1'] }));
    store.upsert(pod('b', { owners: ['o1', 'o2'] }));
    store.upsert(pod('c'));

    expect(names(store.byIndex(OWNER_UID_INDEX, 'o1'))).toEqual(['a', 'b']);
    expect(names(store.byIndex(OWNER_UID_INDEX, 'o2'))).toEqual(['b']);

    store.upsert(pod('b', { owners: ['o2'], resourceVersion: '2' }));
    store.delete('default/a');

    expect(store.byIndex(OWNER_UID_INDEX, 'o1')).toEqual([]);
    expect(names(store.byIndex(OWNER_UID_INDEX, 'o2'))).toEqual(['b']);
    expect(store.byIndex(OWNER_UID_INDEX, 'o2')[0]?.metadata.resourceVersion).toBe('2');
  });

  it('GIVEN objects already stored WHEN a custom index is added THEN they are indexed at once, and later changes are indexed too', () => {
    const store = new Store<Pod>();
    store.upsert(pod('a', { node: 'n1' }));
    store.upsert(pod('b', { node: 'n2' }));

    store.addIndex('spec.nodeName', byNode);

    expect(store.hasIndex('spec.nodeName')).toBe(true);
    expect(names(store.byIndex('spec.nodeName', 'n1'))).toEqual(['a']);

    store.upsert(pod('c', { node: 'n1' }));
    store.upsert(pod('b', { node: 'n1', resourceVersion: '2' }));

    expect(names(store.byIndex('spec.nodeName', 'n1'))).toEqual(['a', 'b', 'c']);
    expect(store.byIndex('spec.nodeName', 'n2')).toEqual([]);
  });

  it('GIVEN an index name in use THEN addIndex throws', () => {
    const store = new Store<Pod>();
    store.addIndex('spec.nodeName', byNode);

    expect(() => store.addIndex('spec.nodeName', byNode)).toThrow('index "spec.nodeName" already exists');
    expect(() => store.addIndex(OWNER_UID_INDEX, () => [])).toThrow(
      `index "${OWNER_UID_INDEX}" already exists`,
    );
  });

  it('GIVEN an unknown index THEN byIndex throws, pointing at indexField', () => {
    const store = new Store<Pod>();

    expect(store.hasIndex('spec.nodeName')).toBe(false);
    expect(() => store.byIndex('spec.nodeName', 'n1')).toThrow(
      'no index "spec.nodeName": register it with indexField before the cache starts',
    );
  });
});

describe('Store.list', () => {
  function populated(): Store<Pod> {
    const store = new Store<Pod>();
    store.addIndex('spec.nodeName', byNode);
    store.upsert(pod('web-1', { namespace: 'ns1', labels: { app: 'web' }, node: 'n1', owners: ['rs1'] }));
    store.upsert(pod('web-2', { namespace: 'ns1', labels: { app: 'web' }, node: 'n2', owners: ['rs1'] }));
    store.upsert(pod('db-1', { namespace: 'ns1', labels: { app: 'db' }, node: 'n1' }));
    store.upsert(pod('web-3', { namespace: 'ns2', labels: { app: 'web' }, node: 'n1' }));
    return store;
  }

  it('GIVEN no options THEN it lists everything', () => {
    expect(names(populated().list())).toEqual(['db-1', 'web-1', 'web-2', 'web-3']);
  });

  it('GIVEN a namespace THEN it lists that namespace only', () => {
    expect(names(populated().list({ namespace: 'ns2' }))).toEqual(['web-3']);
  });

  it('GIVEN a label selector THEN it lists the matching objects, optionally in one namespace', () => {
    const store = populated();
    expect(names(store.list({ labelSelector: 'app=web' }))).toEqual(['web-1', 'web-2', 'web-3']);
    expect(names(store.list({ labelSelector: 'app in (web,db)', namespace: 'ns1' }))).toEqual([
      'db-1',
      'web-1',
      'web-2',
    ]);
    expect(names(store.list({ labelSelector: '!app' }))).toEqual([]);
  });

  it('GIVEN fields THEN it lists objects found in every named index, combined with namespace and selector', () => {
    const store = populated();
    expect(names(store.list({ fields: { 'spec.nodeName': 'n1' } }))).toEqual(['db-1', 'web-1', 'web-3']);
    expect(names(store.list({ fields: { 'spec.nodeName': 'n1' }, namespace: 'ns1' }))).toEqual([
      'db-1',
      'web-1',
    ]);
    expect(
      names(store.list({ fields: { 'spec.nodeName': 'n1' }, namespace: 'ns1', labelSelector: 'app=web' })),
    ).toEqual(['web-1']);
    expect(names(store.list({ fields: { 'spec.nodeName': 'n1', [OWNER_UID_INDEX]: 'rs1' } }))).toEqual([
      'web-1',
    ]);
    expect(store.list({ fields: { 'spec.nodeName': 'n3' } })).toEqual([]);
  });

  it('GIVEN a field without an index THEN it throws', () => {
    expect(() => populated().list({ fields: { 'status.phase': 'Running' } })).toThrow(
      'no index "status.phase"',
    );
  });

  it('GIVEN an invalid label selector THEN it throws InvalidSelectorError', () => {
    expect(() => populated().list({ labelSelector: 'app in web' })).toThrow(InvalidSelectorError);
  });
});

describe('Store.list through label indexes', () => {
  const KEYS = ['app', 'tier', 'instance'] as const;
  const VALUES = ['a', 'b', ''] as const;
  const labelsArb = fc.dictionary(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES), { maxKeys: 3 });
  const requirementArb = fc.oneof(
    fc
      .tuple(fc.constantFrom(...KEYS), fc.constantFrom('=', '==', '!='), fc.constantFrom(...VALUES))
      .map(([k, op, v]) => `${k}${op}${v}`),
    fc
      .tuple(
        fc.constantFrom(...KEYS),
        fc.constantFrom('in', 'notin'),
        fc.subarray(['a', 'b'], { minLength: 1 }),
      )
      .map(([k, op, vs]) => `${k} ${op} (${vs.join(',')})`),
    fc.constantFrom(...KEYS).map((k) => k),
    fc.constantFrom(...KEYS).map((k) => `!${k}`),
  );
  const opArb = fc.oneof(
    fc.record({
      op: fc.constant('upsert' as const),
      name: fc.constantFrom('p0', 'p1', 'p2', 'p3', 'p4'),
      namespace: fc.constantFrom('ns1', 'ns2'),
      labels: labelsArb,
      owner: fc.constantFrom('u1', 'u2'),
    }),
    fc.record({
      op: fc.constant('delete' as const),
      name: fc.constantFrom('p0', 'p1', 'p2', 'p3', 'p4'),
      namespace: fc.constantFrom('ns1', 'ns2'),
    }),
    fc.record({
      op: fc.constant('list' as const),
      namespace: fc.option(fc.constantFrom('ns1', 'ns2'), { nil: undefined }),
      selector: fc.array(requirementArb, { maxLength: 3 }).map((rs) => rs.join(',')),
      owner: fc.option(fc.constantFrom('u1', 'u2'), { nil: undefined }),
    }),
  );

  it('lists what filtering every object would, as objects come, change and go', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 10, maxLength: 60 }), (ops) => {
        const store = new Store<Pod>();
        const all = new Map<string, Pod>();
        for (const o of ops) {
          if (o.op === 'upsert') {
            const p = pod(o.name, { namespace: o.namespace, labels: o.labels, owners: [o.owner] });
            store.upsert(structuredClone(p));
            all.set(`${o.namespace}/${o.name}`, p);
          } else if (o.op === 'delete') {
            store.delete(`${o.namespace}/${o.name}`);
            all.delete(`${o.namespace}/${o.name}`);
          } else {
            const selector = o.selector ? parseLabelSelector(o.selector) : undefined;
            const expected = [...all.values()].filter(
              (p) =>
                (o.namespace === undefined || p.metadata.namespace === o.namespace) &&
                (o.owner === undefined || p.metadata.ownerReferences?.some((r) => r.uid === o.owner)) &&
                (!selector || selector.matches(p.metadata.labels)),
            );
            const listed = store.list({
              ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
              ...(o.selector ? { labelSelector: o.selector } : {}),
              ...(o.owner !== undefined ? { fields: { [OWNER_UID_INDEX]: o.owner } } : {}),
            });
            const names = (ps: Pod[]) => ps.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort();
            expect(names(listed), `list ${JSON.stringify(o)}`).toEqual(names(expected));
          }
        }
      }),
      { seed: 20261127, numRuns: 400 },
    );
  });
});

describe('readOnlyStore', () => {
  it('reads the store as it changes and offers nothing that writes', () => {
    const store = new Store<KubeObject>();
    const view = readOnlyStore(store);
    store.upsert({ metadata: { name: 'a', namespace: 'ns', uid: 'u-a' } });
    expect(view.size).toBe(1);
    expect(view.get('ns/a')?.metadata.uid).toBe('u-a');
    expect(view.list({ namespace: 'ns' })).toHaveLength(1);
    expect(Object.isFrozen(view)).toBe(true);
    expect('upsert' in view || 'delete' in view || 'addIndex' in view).toBe(false);
  });
});
