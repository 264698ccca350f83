import { describe, expect, it } from 'vitest';
import { migrationLanes, rebalanceSlots } from './rebalance-slots.js';
import { shapedContext } from './testing/contexts.js';
import { FakeCluster } from './testing/fake-cluster.js';
import { formedCluster, primaries } from './testing/shapes.js';

const scaleIn = { size: 3, primaries: 3, replicasPerPrimary: 0 };

describe('rebalanceSlots', () => {
  it('moves slots off a leaving primary live: IMPORTING, MIGRATING, keys, then the owner, target first', async () => {
    const cluster = new FakeCluster(primaries(4));
    const result = await rebalanceSlots(shapedContext(cluster, { ...scaleIn, migrationBatch: 2 }));
    expect(cluster.commands).toEqual([
      'redis-2: CLUSTER SETSLOT 16382 IMPORTING a3',
      'redis-2: CLUSTER SETSLOT 16383 IMPORTING a3',
      'redis-3: CLUSTER SETSLOT 16382 MIGRATING a2',
      'redis-3: CLUSTER SETSLOT 16383 MIGRATING a2',
      'redis-3: CLUSTER GETKEYSINSLOT 16382 500',
      'redis-3: CLUSTER GETKEYSINSLOT 16383 500',
      'redis-2: CLUSTER SETSLOT 16382 NODE a2',
      'redis-2: CLUSTER SETSLOT 16383 STABLE',
      'redis-2: CLUSTER SETSLOT 16383 NODE a2',
      'redis-3: CLUSTER SETSLOT 16382 NODE a2',
      'redis-3: CLUSTER SETSLOT 16383 NODE a2',
    ]);
    expect(result?.phase).toBe('MigratingSlots');
    expect(result?.message).toBe('migrated 2 slot(s); about 4094 to go');
    expect(result?.migrationsInProgress).toBe(4094);
    expect(result?.actions).toEqual([{ reason: 'SlotsMigrated', message: '2 slots redis-3 → redis-2' }]);
  });

  it('empties a leaving primary over the remaining ones in passes of the batch size', async () => {
    const cluster = new FakeCluster(primaries(4));
    const messages: string[] = [];
    for (let pass = 0; pass < 3; pass++) {
      const result = await rebalanceSlots(shapedContext(cluster, scaleIn));
      messages.push(result?.message ?? 'nothing to do');
    }
    expect(messages).toEqual([
      'migrated 2048 slot(s); about 2048 to go',
      'migrated 2048 slot(s); about 0 to go',
      'nothing to do',
    ]);
    expect(cluster.slotsOf('redis-3')).toEqual([]);
    expect([0, 1, 2].map((i) => cluster.slotsOf(`redis-${i}`).length)).toEqual([5461, 5461, 5462]);
  });

  it('waits until every node a move touches says cluster_state:ok', async () => {
    const cluster = new FakeCluster(
      primaries(4).map((n) => (n.pod === 'redis-2' ? { ...n, clusterState: 'fail' } : n)),
    );
    const result = await rebalanceSlots(shapedContext(cluster, scaleIn));
    expect(result?.phase).toBe('Settling');
    expect(result?.message).toBe('waiting for cluster_state:ok on redis-2 before moving slots');
    expect(cluster.commands).toEqual([]);
  });

  it('pauses, leaving the open slots to the next pass, when a node is briefly not serving', async () => {
    const cluster = new FakeCluster(primaries(4)).failOn(
      'redis-2',
      /NODE/,
      'CLUSTERDOWN The cluster is down',
    );
    const result = await rebalanceSlots(shapedContext(cluster, { ...scaleIn, migrationBatch: 2 }));
    expect(result?.phase).toBe('Settling');
    expect(result?.message).toBe('slot migration paused: CLUSTER: CLUSTERDOWN The cluster is down');
    expect(result?.migrationsInProgress).toBe(4096);
  });

  it('fails the pass on any other error', async () => {
    const cluster = new FakeCluster(primaries(4)).failOn('redis-2', /IMPORTING/, 'ERR I am not a master');
    await expect(rebalanceSlots(shapedContext(cluster, { ...scaleIn, migrationBatch: 2 }))).rejects.toThrow(
      'ERR I am not a master',
    );
  });

  it('leaves primaries within 5% of their share alone', async () => {
    const cluster = new FakeCluster([
      { pod: 'redis-0', slots: '0-5200' },
      { pod: 'redis-1', slots: '5201-10921' },
      { pod: 'redis-2', slots: '10922-16383' },
    ]);
    expect(await rebalanceSlots(shapedContext(cluster, scaleIn))).toBeUndefined();
    expect(
      await rebalanceSlots(shapedContext(new FakeCluster(formedCluster()), { ...scaleIn, size: 6 })),
    ).toBeUndefined();
  });
});

describe('migrationLanes', () => {
  it('runs each source in its own lane, but everything in one when a node both gives and takes', () => {
    const [a, b, c, d] = shapedContext(new FakeCluster(primaries(4)), { ...scaleIn, size: 4 }).participants;
    const move = (from: typeof a, to: typeof a) => ({ from: from!, to: to!, slots: [1] });
    expect(migrationLanes([move(a, c), move(b, c), move(a, d)]).map((l) => l.length)).toEqual([2, 1]);
    expect(migrationLanes([move(a, c), move(c, d)]).map((l) => l.length)).toEqual([2]);
  });
});
