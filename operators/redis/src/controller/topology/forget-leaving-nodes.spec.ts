import { describe, expect, it } from 'vitest';
import { forgetLeavingNodes } from './forget-leaving-nodes.js';
import { shapedContext } from './testing/contexts.js';
import { FakeCluster } from './testing/fake-cluster.js';
import { primaries } from './testing/shapes.js';

const shape = { size: 3, primaries: 3, replicasPerPrimary: 0 };

describe('forgetLeavingNodes', () => {
  it('has every member forget a leaving node that serves nothing', async () => {
    const cluster = new FakeCluster([
      ...primaries(3),
      { pod: 'redis-3' },
      { pod: 'redis-4', replicaOf: 'redis-3' },
    ]);
    const ctx = shapedContext(cluster, shape);
    expect(ctx.report('Ready', '').removablePodsFrom).toBe(5);
    const result = await forgetLeavingNodes(ctx);
    expect(cluster.commands).toEqual([
      'redis-0: CLUSTER FORGET a3',
      'redis-1: CLUSTER FORGET a3',
      'redis-2: CLUSTER FORGET a3',
      'redis-0: CLUSTER FORGET a4',
      'redis-1: CLUSTER FORGET a4',
      'redis-2: CLUSTER FORGET a4',
    ]);
    expect(result?.phase).toBe('Forgetting');
    expect(result?.message).toBe('removed 2 node(s) from the cluster');
    expect(result?.actions).toEqual([
      { reason: 'NodeRemoved', message: 'redis-3, redis-4 removed from the cluster' },
    ]);
    expect(shapedContext(cluster, shape).report('Ready', '').removablePodsFrom).toBe(3);
  });

  it('waits while a member still follows a leaving node', async () => {
    const cluster = new FakeCluster([
      ...primaries(2),
      { pod: 'redis-2', replicaOf: 'redis-3' },
      { pod: 'redis-3', slots: '10922-16383' },
    ]);
    expect(await forgetLeavingNodes(shapedContext(cluster, { ...shape, primaries: 2 }))).toBeUndefined();
    expect(cluster.commands).toEqual([]);
  });

  it('keeps an unreachable leaving pod until it can be checked', () => {
    const cluster = new FakeCluster([...primaries(3), { pod: 'redis-3', down: true }]);
    expect(cluster.context(shape).report('Ready', '').removablePodsFrom).toBe(4);
  });
});
