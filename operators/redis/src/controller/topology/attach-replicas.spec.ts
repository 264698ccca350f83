import { describe, expect, it } from 'vitest';
import { attachReplicas, layoutReplicas } from './attach-replicas.js';
import { awaitHealthy, reportReady } from './await-healthy.js';
import { shapedContext } from './testing/contexts.js';
import { FakeCluster, type FakeNodeSpec } from './testing/fake-cluster.js';
import { formedCluster, primaries } from './testing/shapes.js';

/** Five nodes, one replica per primary: three primaries, two of them with a replica. */
const fiveNodes = { size: 5, primaries: 3, replicasPerPrimary: 1 };

async function attach(nodes: FakeNodeSpec[], shape = fiveNodes) {
  const cluster = new FakeCluster(nodes);
  const ctx = shapedContext(cluster, shape);
  const layout = layoutReplicas(ctx);
  const result = await attachReplicas(ctx, layout);
  return { cluster, ctx, layout, result };
}

describe('attachReplicas', () => {
  it('gives the first primaries the spare nodes of an uneven size', async () => {
    const { cluster, result } = await attach([
      ...primaries(3),
      { pod: 'redis-3', nodeName: 'node-0' },
      { pod: 'redis-4', nodeName: 'node-1' },
    ]);
    expect(cluster.commands).toEqual(['redis-4: CLUSTER REPLICATE a0', 'redis-3: CLUSTER REPLICATE a1']);
    expect(result?.phase).toBe('Replicating');
    expect(result?.message).toBe('attached 2 replica(s)');
    expect(result?.actions).toEqual([
      { reason: 'ReplicasAttached', message: 'attached 2 replica(s) to their primaries' },
    ]);
  });

  it('keeps the extra replica with the primary that already has it, so none moves after a failover', async () => {
    const { cluster } = await attach([
      ...primaries(3),
      { pod: 'redis-3', nodeName: 'node-1' },
      { pod: 'redis-4', nodeName: 'node-0', replicaOf: 'redis-2' },
    ]);
    expect(cluster.commands).toEqual(['redis-3: CLUSTER REPLICATE a0']);
  });

  it('places a replica on another Kubernetes node than its primary when it can', async () => {
    const { cluster } = await attach(
      [...primaries(3), { pod: 'redis-3', nodeName: 'node-0' }, { pod: 'redis-4', nodeName: 'node-2' }],
      { size: 5, primaries: 3, replicasPerPrimary: 1 },
    );
    expect(cluster.commands).toEqual(['redis-4: CLUSTER REPLICATE a0', 'redis-3: CLUSTER REPLICATE a1']);
  });

  it('re-homes a surplus replica and the follower of a leaving node', async () => {
    const { cluster } = await attach(
      [
        ...primaries(3),
        { pod: 'redis-3', nodeName: 'node-1', replicaOf: 'redis-0' },
        { pod: 'redis-4', nodeName: 'node-2', replicaOf: 'redis-0' },
        { pod: 'redis-5', nodeName: 'node-0', replicaOf: 'redis-6' },
        { pod: 'redis-6', nodeName: 'node-1' },
      ],
      { size: 6, primaries: 3, replicasPerPrimary: 1 },
    );
    expect(cluster.commands).toEqual(['redis-4: CLUSTER REPLICATE a1', 'redis-5: CLUSTER REPLICATE a2']);
  });

  it('leaves a master holding keys alone, and the shape then lacks a replica', async () => {
    const { cluster, ctx, layout, result } = await attach([
      ...primaries(3),
      { pod: 'redis-3', nodeName: 'node-1', replicaOf: 'redis-0' },
      { pod: 'redis-4', nodeName: 'node-2', keys: 12 },
    ]);
    expect(result).toBeUndefined();
    expect(cluster.commands).toEqual([]);
    const health = awaitHealthy(ctx, layout);
    expect(health?.phase).toBe('Degraded');
    expect(health?.message).toBe('1 primary(ies) lack replicas and no node is free to follow them');
  });

  it('does nothing once every primary has its replicas', async () => {
    const { ctx, layout, result } = await attach(formedCluster(), {
      size: 6,
      primaries: 3,
      replicasPerPrimary: 1,
    });
    expect(result).toBeUndefined();
    expect(awaitHealthy(ctx, layout)).toBeUndefined();
    const ready = reportReady(ctx, layout);
    expect(ready.phase).toBe('Ready');
    expect(ready.ready).toBe(true);
    expect(ready.message).toBe('3 primaries with 1/1/1 replica(s) serve all 16384 slots');
  });
});

describe('awaitHealthy', () => {
  it('waits for cluster_state:ok on every member', async () => {
    const { ctx, layout } = await attach(
      formedCluster().map((n) => (n.pod === 'redis-5' ? { ...n, clusterState: 'fail' as const } : n)),
      { size: 6, primaries: 3, replicasPerPrimary: 1 },
    );
    const result = awaitHealthy(ctx, layout);
    expect(result?.phase).toBe('Settling');
    expect(result?.message).toBe('waiting for cluster_state:ok on redis-5');
  });

  it('reports the uneven shape it settled on as ready', async () => {
    const { ctx, layout } = await attach([
      ...primaries(3),
      { pod: 'redis-3', nodeName: 'node-1', replicaOf: 'redis-0' },
      { pod: 'redis-4', nodeName: 'node-2', replicaOf: 'redis-1' },
    ]);
    expect(awaitHealthy(ctx, layout)).toBeUndefined();
    expect(reportReady(ctx, layout).message).toBe('3 primaries with 1/1/0 replica(s) serve all 16384 slots');
  });
});
