import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Kind, KubeObject } from '../../object.js';
import {
  bookmark,
  errorEvent,
  statusReply,
  TestingApiServer,
  type WatchEvent,
} from '../../testing/api-server.js';
import {
  type InformerHandler,
  type InformerOptions,
  SharedInformer,
  stripManagedFields,
} from './informer.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

const CONFIG_MAP: Kind = { apiVersion: 'v1', kind: 'ConfigMap' };

/** A ConfigMap `name` with UID `uid` at `resourceVersion`. */
function configMap(
  name: string,
  uid: string,
  resourceVersion: string,
  more: { namespace?: string; labels?: Record<string, string>; data?: Record<string, string> } = {},
): ConfigMap {
  const { namespace = 'default', labels, data } = more;
  return {
    ...CONFIG_MAP,
    metadata: { name, namespace, uid, resourceVersion, ...(labels ? { labels } : {}) },
    ...(data ? { data } : {}),
  };
}

const event = (type: 'ADDED' | 'MODIFIED' | 'DELETED', object: ConfigMap): WatchEvent => ({ type, object });

/** `name:uid@resourceVersion`, enough to tell versions and incarnations apart. */
const label = (o: KubeObject) => `${o.metadata.name}:${o.metadata.uid}@${o.metadata.resourceVersion}`;

type Event = ['add', string, boolean] | ['update', string, string] | ['delete', string, boolean];

function recorder(events: Event[]): InformerHandler<ConfigMap> {
  return {
    onAdd: (obj, initial) => events.push(['add', label(obj), initial]),
    onUpdate: (oldObj, newObj) => events.push(['update', label(oldObj), label(newObj)]),
    onDelete: (obj, stateUnknown) => events.push(['delete', label(obj), stateUnknown]),
  };
}

let server: TestingApiServer;
let stop: AbortController;
let informers: SharedInformer<ConfigMap>[];

beforeEach(async () => {
  server = await TestingApiServer.start();
  server.setObjects(
    [configMap('a', 'a1', '10'), configMap('b', 'b1', '11'), configMap('c', 'c1', '12')],
    '12',
  );
  stop = new AbortController();
  informers = [];
});

afterEach(async () => {
  stop.abort();
  // Closing the server first fails any list still in flight (lists take no abort signal).
  await server.close();
  for (const informer of informers) await informer.stopped();
});

/** A running informer with a recording handler added before it starts. */
function startInformer(options: Partial<InformerOptions<ConfigMap>> = {}) {
  const errors: Error[] = [];
  const events: Event[] = [];
  const informer = new SharedInformer<ConfigMap>({
    client: server.client(),
    type: CONFIG_MAP,
    scope: { namespaces: [] },
    namespaced: true,
    onError: (error) => errors.push(error),
    ...options,
  });
  informers.push(informer);
  informer.addHandler(recorder(events));
  informer.run(stop.signal);
  return { informer, events, errors };
}

const INITIAL: Event[] = [
  ['add', 'a:a1@10', true],
  ['add', 'b:b1@11', true],
  ['add', 'c:c1@12', true],
];

describe('SharedInformer initial list', () => {
  it('GIVEN 3 objects WHEN the informer starts THEN each is added with initial=true, the store holds them and it has synced', async () => {
    const { informer, events, errors } = startInformer();
    expect(informer.hasSynced).toBe(false);

    await informer.waitForSync();

    expect(informer.hasSynced).toBe(true);
    expect(events).toEqual(INITIAL);
    expect(informer.store.values().map(label)).toEqual(['a:a1@10', 'b:b1@11', 'c:c1@12']);
    expect(server.lists.map((r) => r.path)).toEqual(['/api/v1/configmaps']);
    expect(errors).toEqual([]);
  });

  it('GIVEN a transform WHEN objects are listed and watched THEN the store holds transformed objects', async () => {
    const managed = { ...configMap('m', 'm1', '13'), metadata: { ...configMap('m', 'm1', '13').metadata } };
    managed.metadata.managedFields = [{ manager: 'kubectl' }];
    managed.metadata.annotations = { 'kubectl.kubernetes.io/last-applied-configuration': '{}', keep: 'yes' };
    server.setObjects([managed], '13');
    const { informer } = startInformer({ transform: stripManagedFields });
    await informer.waitForSync();
    const watch = await server.nextWatch();

    watch.send(event('ADDED', { ...managed, metadata: { ...managed.metadata, name: 'n', uid: 'n1' } }));
    await vi.waitFor(() => expect(informer.store.size).toBe(2));

    for (const key of ['default/m', 'default/n']) {
      expect(informer.store.get(key)?.metadata.managedFields).toBeUndefined();
      expect(informer.store.get(key)?.metadata.annotations).toEqual({ keep: 'yes' });
    }
  });

  it('GIVEN objects with server-side apply entries WHEN stripped THEN only those entries stay, for applyIfChanged', () => {
    const applied = { manager: 'op', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {} } } };
    const updated = { manager: 'kube-controller-manager', operation: 'Update', fieldsV1: { 'f:data': {} } };
    const stripped = stripManagedFields({
      ...configMap('m', 'm1', '13'),
      metadata: { ...configMap('m', 'm1', '13').metadata, managedFields: [applied, updated] },
    });
    expect(stripped.metadata.managedFields).toEqual([applied]);
  });
});

describe('SharedInformer watch events', () => {
  it('GIVEN a synced informer WHEN ADDED, MODIFIED and DELETED arrive THEN onAdd(initial=false), onUpdate(old, new) and onDelete(stored copy, stateUnknown=false)', async () => {
    const { informer, events, errors } = startInformer();
    await informer.waitForSync();
    const watch = await server.nextWatch();

    watch.send(
      event('ADDED', configMap('d', 'd1', '13')),
      event('MODIFIED', configMap('a', 'a1', '14', { data: { k: 'v' } })),
      event('DELETED', configMap('b', 'b1', '15')),
    );

    await vi.waitFor(() => expect(events).toHaveLength(6));
    expect(events.slice(3)).toEqual([
      ['add', 'd:d1@13', false],
      ['update', 'a:a1@10', 'a:a1@14'],
      // The handler gets the last state the store held.
      ['delete', 'b:b1@11', false],
    ]);
    expect(informer.store.values().map(label)).toEqual(['a:a1@14', 'c:c1@12', 'd:d1@13']);
    expect(informer.store.get('default/a')?.data).toEqual({ k: 'v' });
    expect(errors).toEqual([]);
  });

  it('GIVEN a synced informer WHEN ADDED arrives for a name the store holds with another UID THEN onDelete(old, true) then onAdd(new)', async () => {
    const { informer, events } = startInformer();
    await informer.waitForSync();
    const watch = await server.nextWatch();

    watch.send(event('ADDED', configMap('a', 'a2', '20')));

    await vi.waitFor(() => expect(events).toHaveLength(5));
    expect(events.slice(3)).toEqual([
      ['delete', 'a:a1@10', true],
      ['add', 'a:a2@20', false],
    ]);
    expect(label(informer.store.get('default/a')!)).toBe('a:a2@20');
  });
});

describe('SharedInformer relist after 410', () => {
  it('GIVEN changes made while disconnected WHEN the watch is answered 410 and the informer relists THEN the diff is by UID', async () => {
    server.setObjects(
      [
        configMap('a', 'a1', '10'),
        configMap('b', 'b1', '11'),
        configMap('c', 'c1', '12'),
        configMap('d', 'd1', '13'),
      ],
      '13',
    );
    const { informer, events, errors } = startInformer();
    await informer.waitForSync();
    const first = await server.nextWatch();

    // While disconnected: a deleted, b deleted and recreated (new UID), c unchanged, d modified, e created.
    server.setObjects(
      [
        configMap('b', 'b2', '20'),
        configMap('c', 'c1', '12'),
        configMap('d', 'd1', '21'),
        configMap('e', 'e1', '22'),
      ],
      '22',
    );
    server.reply('watch', statusReply(410, 'Expired'));
    first.send(bookmark('13')); // a watch that worked: one ending without an event backs off
    first.end();
    const second = await server.nextWatch();

    expect(second.request.query.resourceVersion).toBe('22');
    expect(events.slice(4)).toEqual([
      ['delete', 'a:a1@10', true],
      ['delete', 'b:b1@11', true],
      ['add', 'b:b2@20', false],
      ['update', 'd:d1@13', 'd:d1@21'],
      ['add', 'e:e1@22', false],
    ]);
    expect(informer.store.values().map(label).sort()).toEqual(['b:b2@20', 'c:c1@12', 'd:d1@21', 'e:e1@22']);
    await vi.waitFor(() =>
      expect(informer.stats).toEqual([{ lists: 2, watches: 2, expired: 1, failures: 0 }]),
    );
    expect(errors).toEqual([]);
  });

  it('GIVEN nothing changed WHEN an ERROR 410 event forces a relist THEN no handler is called', async () => {
    const { informer, events } = startInformer();
    await informer.waitForSync();
    const first = await server.nextWatch();

    first.send(errorEvent(410, 'Expired'));
    await server.nextWatch();

    expect(server.lists).toHaveLength(2);
    expect(events).toEqual(INITIAL);
  });
});

describe('SharedInformer.observe (read-your-writes)', () => {
  it('GIVEN a synced informer WHEN a write result is observed THEN the store holds it at once with onUpdate, and the watch event of the same resourceVersion emits nothing', async () => {
    const { informer, events } = startInformer();
    await informer.waitForSync();
    const watch = await server.nextWatch();
    const written = configMap('a', 'a1', '15', { data: { k: 'written' } });

    informer.observe(written);

    expect(informer.store.get('default/a')?.data).toEqual({ k: 'written' });
    expect(events.slice(3)).toEqual([['update', 'a:a1@10', 'a:a1@15']]);
    // The store holds a copy: the caller's object stays its own (and unfrozen).
    expect(informer.store.get('default/a')).not.toBe(written);
    expect(Object.isFrozen(written)).toBe(false);

    watch.send(event('MODIFIED', written), event('ADDED', configMap('z', 'z1', '16')));
    await vi.waitFor(() => expect(events).toHaveLength(5));
    expect(events.slice(3)).toEqual([
      ['update', 'a:a1@10', 'a:a1@15'],
      ['add', 'z:z1@16', false],
    ]);
  });

  it('GIVEN a transform WHEN a write is observed, its watch event arrives and a relist finds the rest unchanged THEN each version is transformed once', async () => {
    const transformed: string[] = [];
    const { informer } = startInformer({
      transform: (obj) => {
        transformed.push(label(obj));
        return obj;
      },
    });
    await informer.waitForSync();
    const watch = await server.nextWatch();
    const written = configMap('a', 'a1', '15', { data: { k: 'written' } });

    informer.observe(written);
    watch.send(event('MODIFIED', written), event('ADDED', configMap('z', 'z1', '16')));
    await vi.waitFor(() => expect(informer.store.size).toBe(4));
    server.setObjects(
      [written, configMap('b', 'b1', '11'), configMap('c', 'c1', '12'), configMap('z', 'z1', '17')],
      '17',
    );
    watch.send(errorEvent(410, 'Expired'));
    await server.nextWatch();

    expect(transformed).toEqual(['a:a1@10', 'b:b1@11', 'c:c1@12', 'a:a1@15', 'z:z1@16', 'z:z1@17']);
  });

  it('GIVEN a created object observed WHEN its ADDED event arrives THEN onAdd was emitted once, by observe', async () => {
    const { informer, events } = startInformer();
    await informer.waitForSync();
    const watch = await server.nextWatch();

    informer.observe(configMap('n', 'n1', '15'));
    watch.send(event('ADDED', configMap('n', 'n1', '15')), event('ADDED', configMap('z', 'z1', '16')));

    await vi.waitFor(() => expect(events).toHaveLength(5));
    expect(events.slice(3)).toEqual([
      ['add', 'n:n1@15', false],
      ['add', 'z:z1@16', false],
    ]);
  });

  it('GIVEN an observed write WHEN an older watch event of the same object arrives first THEN the store is not rolled back', async () => {
    const { informer, events } = startInformer();
    await informer.waitForSync();
    const watch = await server.nextWatch();

    informer.observe(configMap('a', 'a1', '15'));
    // Someone else's change (rv 12 < 15) is delivered before the event of our own write.
    watch.send(event('MODIFIED', configMap('a', 'a1', '13')));
    watch.send(event('MODIFIED', configMap('a', 'a1', '15')), event('ADDED', configMap('z', 'z1', '16')));

    await vi.waitFor(() => expect(events.at(-1)).toEqual(['add', 'z:z1@16', false]));
    expect(events.slice(3)).toEqual([
      ['update', 'a:a1@10', 'a:a1@15'],
      ['add', 'z:z1@16', false],
    ]);
    expect(label(informer.store.get('default/a')!)).toBe('a:a1@15');
  });

  it('GIVEN an object deleted while a write to it was in flight WHEN the write result is observed after the DELETED event THEN it does not come back', async () => {
    const { informer, events } = startInformer();
    await informer.waitForSync();
    const watch = await server.nextWatch();

    // Our update lands at rv 15; someone deletes the object at rv 16; the DELETED event beats our response.
    watch.send(event('DELETED', configMap('a', 'a1', '16')), event('ADDED', configMap('z', 'z1', '17')));
    await vi.waitFor(() => expect(events.at(-1)).toEqual(['add', 'z:z1@17', false]));
    informer.observe(configMap('a', 'a1', '15', { data: { k: 'written' } }));

    expect(informer.store.get('default/a')).toBeUndefined();
    expect(events.slice(3)).toEqual([
      ['delete', 'a:a1@10', false],
      ['add', 'z:z1@17', false],
    ]);
    // A later incarnation created under the same name is news.
    informer.observe(configMap('a', 'a2', '18'));
    expect(label(informer.store.get('default/a')!)).toBe('a:a2@18');
  });

  it('GIVEN an object found gone by a relist WHEN a write result older than the list is observed THEN it does not come back', async () => {
    const { informer, events } = startInformer();
    await informer.waitForSync();
    const watch = await server.nextWatch();
    server.setObjects([configMap('b', 'b1', '11'), configMap('c', 'c1', '12')], '20');
    // A watch that worked, then expired: relisted at once (one expiring at once from its list backs off).
    watch.send(bookmark('10'));
    watch.send({
      type: 'ERROR',
      object: { kind: 'Status', code: 410, reason: 'Expired' },
    } as unknown as WatchEvent);
    await vi.waitFor(() => expect(events.at(-1)).toEqual(['delete', 'a:a1@10', true]));

    informer.observe(configMap('a', 'a1', '15', { data: { k: 'written' } }));
    expect(informer.store.get('default/a')).toBeUndefined();
  });

  it('GIVEN a synced informer WHEN an older or equal version is observed THEN it is ignored', async () => {
    const { informer, events } = startInformer();
    await informer.waitForSync();

    informer.observe(configMap('a', 'a1', '9', { data: { k: 'older' } }));
    informer.observe(configMap('a', 'a1', '10', { data: { k: 'same' } }));

    expect(informer.store.get('default/a')?.data).toBeUndefined();
    expect(events).toEqual(INITIAL);
  });

  it('GIVEN an informer that has not synced WHEN an object is observed THEN it is ignored', () => {
    server.reply('list', { ...statusReply(200, 'held'), after: new Promise(() => {}) });
    const { informer, events } = startInformer();

    informer.observe(configMap('a', 'a1', '15'));

    expect(informer.store.size).toBe(0);
    expect(events).toEqual([]);
  });

  it('GIVEN an informer scoped by label selector or namespaces WHEN an object outside its scope is observed THEN it is ignored, and one its selector leaves out is reported', async () => {
    server.setObjects([configMap('a', 'a1', '10', { namespace: 'ns1', labels: { app: 'web' } })], '10');
    const unselected: string[] = [];
    const selected = startInformer({
      scope: { namespaces: [], labelSelector: 'app=web' },
      onUnselected: (obj) => unselected.push(label(obj)),
    });
    const namespaced = startInformer({
      scope: { namespaces: ['ns1'] },
      onUnselected: (obj) => unselected.push(label(obj)),
    });
    await Promise.all([selected.informer.waitForSync(), namespaced.informer.waitForSync()]);

    selected.informer.observe(configMap('x', 'x1', '20', { namespace: 'ns1', labels: { app: 'db' } }));
    namespaced.informer.observe(configMap('y', 'y1', '20', { namespace: 'ns2', labels: { app: 'web' } }));
    selected.informer.observe(configMap('w', 'w1', '21', { namespace: 'ns1', labels: { app: 'web' } }));

    expect(selected.informer.store.values().map(label)).toEqual(['a:a1@10', 'w:w1@21']);
    expect(namespaced.informer.store.values().map(label)).toEqual(['a:a1@10']);
    // A write to another namespace is the caller's business; one without the selected labels is a mistake.
    expect(unselected).toEqual(['x:x1@20']);
  });
});

describe('SharedInformer handlers', () => {
  it('GIVEN a handler that throws WHEN objects are listed and watched THEN the other handlers and the store still get every change, and onError gets each error', async () => {
    const failing: InformerHandler<ConfigMap> = {
      onAdd: () => {
        throw new Error('add failed');
      },
      onUpdate: () => {
        throw new Error('update failed');
      },
    };
    const events: Event[] = [];
    const errors: Error[] = [];
    const informer = new SharedInformer<ConfigMap>({
      client: server.client(),
      type: CONFIG_MAP,
      scope: { namespaces: [] },
      namespaced: true,
      onError: (error) => errors.push(error),
    });
    informers.push(informer);
    informer.addHandler(failing);
    informer.addHandler(recorder(events));
    informer.run(stop.signal);
    await informer.waitForSync();
    const watch = await server.nextWatch();

    watch.send(event('MODIFIED', configMap('a', 'a1', '13')), event('ADDED', configMap('d', 'd1', '14')));

    await vi.waitFor(() => expect(events).toHaveLength(5));
    expect(events).toEqual([...INITIAL, ['update', 'a:a1@10', 'a:a1@13'], ['add', 'd:d1@14', false]]);
    expect(informer.store.values().map(label)).toEqual(['a:a1@13', 'b:b1@11', 'c:c1@12', 'd:d1@14']);
    expect(errors.map((e) => e.message)).toEqual([
      'add failed',
      'add failed',
      'add failed',
      'update failed',
      'add failed',
    ]);
    expect(informer.stats[0]?.failures).toBe(0);
  });

  it('GIVEN a synced informer WHEN a handler is added THEN the existing objects are replayed to it as initial adds, and later changes reach it live', async () => {
    const { informer } = startInformer();
    await informer.waitForSync();
    const watch = await server.nextWatch();
    const late: Event[] = [];

    informer.addHandler(recorder(late));

    expect(late).toEqual(INITIAL);
    watch.send(event('ADDED', configMap('d', 'd1', '13')));
    await vi.waitFor(() => expect(late).toHaveLength(4));
    expect(late[3]).toEqual(['add', 'd:d1@13', false]);
  });
});

describe('SharedInformer with several namespaces', () => {
  const NS1 = '/api/v1/namespaces/ns1/configmaps';
  const NS2 = '/api/v1/namespaces/ns2/configmaps';

  beforeEach(() => {
    server.setObjects(
      [
        configMap('a', 'a1', '10', { namespace: 'ns1' }),
        configMap('b', 'b1', '11', { namespace: 'ns2' }),
        configMap('c', 'c1', '12', { namespace: 'ns3' }),
      ],
      '12',
    );
  });

  it('GIVEN one namespace listed and the other not yet WHEN a handler is added THEN it is not synced, and the handler still hears every object', async () => {
    let answer!: () => void;
    const ns2Listed = new Promise<void>((resolve) => {
      answer = resolve;
    });
    server.reply('list', {
      status: 200,
      body: {
        metadata: { resourceVersion: '12' },
        items: [configMap('b', 'b1', '11', { namespace: 'ns2' })],
      },
      after: ns2Listed,
      path: NS2,
    });
    const { informer, events } = startInformer({ scope: { namespaces: ['ns1', 'ns2'] } });
    await vi.waitFor(() => expect(informer.store.size).toBe(1));
    expect(informer.hasSynced).toBe(false);
    const late: Event[] = [];

    informer.addHandler(recorder(late));
    answer();
    await informer.waitForSync();

    expect(events).toEqual([
      ['add', 'a:a1@10', true],
      ['add', 'b:b1@11', true],
    ]);
    expect(late).toEqual(events);
    expect(server.lists.map((r) => r.path).sort()).toEqual([NS1, NS2]);
  });

  it('GIVEN two namespaces WHEN one relists after 410 THEN only that namespace is diffed', async () => {
    const { informer, events } = startInformer({ scope: { namespaces: ['ns1', 'ns2'] } });
    await informer.waitForSync();
    const ns1 = await server.nextWatch(NS1);
    await server.nextWatch(NS2);

    server.setObjects([configMap('b', 'b1', '11', { namespace: 'ns2' })], '20');
    ns1.send(errorEvent(410, 'Expired'));
    await server.nextWatch(NS1);

    expect(events.slice(2)).toEqual([['delete', 'a:a1@10', true]]);
    expect(informer.store.values().map(label)).toEqual(['b:b1@11']);
    expect(informer.stats.map((s) => s.expired)).toEqual([1, 0]);
  });
});
