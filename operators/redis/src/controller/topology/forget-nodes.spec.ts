import { describe, expect, it } from 'vitest';
import { forgetLostPrimaries, forgetStaleNodes } from './forget-nodes.js';
import { reachableContext } from './testing/contexts.js';
import { FakeCluster, type FakeNodeSpec } from './testing/fake-cluster.js';
import { primaries, share } from './testing/shapes.js';

const shape = { size: 3, primaries: 3, replicasPerPrimary: 0 };

/** redis-2 lost its data: it came back empty under a new ID, and the others still list its old node, failing. */
function lostData(extra: { acceptSlotLossOf?: string } = {}) {
  const nodes: FakeNodeSpec[] = [
    ...primaries(2).map((n) => ({ ...n, slots: share(Number(n.pod.slice(-1)), 3) })),
    { pod: 'redis-2', id: 'b2', nodeName: 'node-2', knows: ['redis-0', 'redis-1'] },
  ];
  const cluster = new FakeCluster(nodes, [
    { id: 'a2', ip: '10.0.0.9', slots: share(2, 3), failing: true, knownBy: ['redis-0', 'redis-1'] },
  ]);
  return { cluster, ctx: reachableContext(cluster, { ...shape, acceptSlotLossOf: extra.acceptSlotLossOf }) };
}

describe('forgetLostPrimaries', () => {
  it('stops and names the annotation when a primary is gone with its data and no replica', async () => {
    const { cluster, ctx } = lostData();
    const result = await forgetLostPrimaries(ctx);
    expect(result?.phase).toBe('SlotsLost');
    expect(result?.message).toBe(
      'slots 10922-16383 (node a2) were served by a primary that is gone with its data and had no replica: ' +
        'their keys are lost and no node serves them. To serve them again, empty, annotate the RedisCluster ' +
        'with cache.example.com/accept-slot-loss=a2',
    );
    expect(cluster.commands).toEqual([]);
  });

  it('forgets the lost primary on every node that knows it once the user accepts the loss', async () => {
    const { cluster, ctx } = lostData({ acceptSlotLossOf: 'ff, a2' });
    const result = await forgetLostPrimaries(ctx);
    expect(cluster.commands).toEqual(['redis-0: CLUSTER FORGET a2', 'redis-1: CLUSTER FORGET a2']);
    expect(result?.phase).toBe('Forgetting');
    expect(result?.message).toBe('forgot 1 lost primary(ies); their slots are reassigned next');
    expect(result?.actions).toEqual([
      {
        reason: 'SlotLossAccepted',
        message: 'forgot lost primary a2: its slots 10922-16383 are served again, empty',
      },
    ]);
  });

  it('does not call a failing primary lost while a replica can take over', async () => {
    const cluster = new FakeCluster(
      [...primaries(2), { pod: 'redis-2', replicaOf: 'a9', nodeName: 'node-2' }],
      [{ id: 'a9', ip: '10.0.0.9', slots: share(2, 3), failing: true }],
    );
    expect(await forgetLostPrimaries(reachableContext(cluster, shape))).toBeUndefined();
  });
});

describe('forgetStaleNodes', () => {
  it('forgets a node no pod runs and that serves nothing, except on a replica that follows it', async () => {
    const cluster = new FakeCluster(
      [
        ...primaries(3),
        { pod: 'redis-3', nodeName: 'node-0', replicaOf: 'a1' },
        { pod: 'redis-4', nodeName: 'node-1', replicaOf: 'cc' },
      ],
      [{ id: 'cc', ip: '10.0.0.99' }],
    );
    const result = await forgetStaleNodes(
      reachableContext(cluster, { size: 5, primaries: 3, replicasPerPrimary: 1 }),
    );
    expect(cluster.commands).toEqual([
      'redis-0: CLUSTER FORGET cc',
      'redis-1: CLUSTER FORGET cc',
      'redis-2: CLUSTER FORGET cc',
      'redis-3: CLUSTER FORGET cc',
    ]);
    expect(result?.phase).toBe('Forgetting');
    expect(result?.message).toBe('forgot 1 stale node(s)');
    expect(result?.actions).toEqual([
      { reason: 'NodeForgotten', message: 'forgot node cc, which belongs to no pod' },
    ]);
  });

  it('leaves a node that still serves slots to the lost-primary rule', async () => {
    const { cluster, ctx } = lostData();
    expect(await forgetStaleNodes(ctx)).toBeUndefined();
    expect(cluster.commands).toEqual([]);
  });

  it('forgets nothing while some pod does not answer: its node could be mistaken for a stale one', async () => {
    const cluster = new FakeCluster(
      [...primaries(3), { pod: 'redis-3', down: true }],
      [{ id: 'cc', ip: '10.0.0.99' }],
    );
    const ctx = reachableContext(cluster, shape);
    expect(await forgetLostPrimaries(ctx)).toBeUndefined();
    expect(await forgetStaleNodes(ctx)).toBeUndefined();
    expect(cluster.commands).toEqual([]);
  });
});
