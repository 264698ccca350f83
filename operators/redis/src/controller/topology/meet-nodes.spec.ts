import { describe, expect, it } from 'vitest';
import { awaitAgreement, meetNodes } from './meet-nodes.js';
import { reachableContext } from './testing/contexts.js';
import { FakeCluster } from './testing/fake-cluster.js';
import { formedCluster, freshNodes } from './testing/shapes.js';

const shape = { size: 3, primaries: 3, replicasPerPrimary: 0 };

describe('meetNodes', () => {
  it('introduces every pair of fresh nodes directly, the lower ordinal sending MEET', async () => {
    const cluster = new FakeCluster(freshNodes(3));
    const result = await meetNodes(reachableContext(cluster, shape));
    expect(cluster.commands).toEqual([
      'redis-0: CLUSTER MEET 10.0.0.2 6379',
      'redis-0: CLUSTER MEET 10.0.0.3 6379',
      'redis-1: CLUSTER MEET 10.0.0.3 6379',
    ]);
    expect(result?.phase).toBe('Meeting');
    expect(result?.message).toBe('introducing the nodes to each other with CLUSTER MEET');
    expect(result?.actions).toEqual([
      { reason: 'NodesMet', message: 'introduced 3 node link(s) with CLUSTER MEET' },
    ]);
  });

  it('has the node that does not know the other send MEET', async () => {
    const cluster = new FakeCluster([
      { pod: 'redis-0', knows: ['redis-1', 'redis-2'] },
      { pod: 'redis-1', knows: ['redis-0', 'redis-2'] },
      { pod: 'redis-2', knows: ['redis-1'] },
    ]);
    await meetNodes(reachableContext(cluster, shape));
    expect(cluster.commands).toEqual(['redis-2: CLUSTER MEET 10.0.0.1 6379']);
  });

  it('also meets a leaving node some member still knows', async () => {
    const cluster = new FakeCluster([
      { pod: 'redis-0', knows: ['redis-1', 'redis-2', 'redis-3'] },
      { pod: 'redis-1', knows: ['redis-0', 'redis-2'] },
      { pod: 'redis-2', knows: ['redis-0', 'redis-1'] },
      { pod: 'redis-3', knows: ['redis-0'] },
    ]);
    const result = await meetNodes(reachableContext(cluster, shape));
    expect(cluster.commands).toEqual([
      'redis-1: CLUSTER MEET 10.0.0.4 6379',
      'redis-2: CLUSTER MEET 10.0.0.4 6379',
    ]);
    expect(result?.actions).toEqual([
      { reason: 'NodesMet', message: 'introduced 2 node link(s) with CLUSTER MEET' },
    ]);
  });

  it('does nothing once everyone knows everyone', async () => {
    const cluster = new FakeCluster(formedCluster());
    expect(
      await meetNodes(reachableContext(cluster, { size: 6, primaries: 3, replicasPerPrimary: 1 })),
    ).toBeUndefined();
    expect(cluster.commands).toEqual([]);
  });
});

describe('awaitAgreement', () => {
  const formed = { size: 6, primaries: 3, replicasPerPrimary: 1 };

  it('calls the cluster degraded when the anchor marks a member failing', () => {
    const cluster = new FakeCluster(
      formedCluster().map((n) => (n.pod === 'redis-4' ? { ...n, markedFailingBy: ['redis-0'] } : n)),
    );
    const result = awaitAgreement(reachableContext(cluster, formed));
    expect(result?.phase).toBe('Degraded');
    expect(result?.message).toBe('nodes marked failing: redis-4');
  });

  it('waits for the others while only some node disagrees', () => {
    const cluster = new FakeCluster(
      formedCluster().map((n) =>
        n.pod === 'redis-4' ? { ...n, markedFailingBy: ['redis-2', 'redis-5'] } : n,
      ),
    );
    const result = awaitAgreement(reachableContext(cluster, formed));
    expect(result?.phase).toBe('Joining');
    expect(result?.message).toBe('waiting for every node to agree on the cluster membership');
  });

  it('goes on when every node agrees', () => {
    expect(awaitAgreement(reachableContext(new FakeCluster(formedCluster()), formed))).toBeUndefined();
  });
});
