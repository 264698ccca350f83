import { describe, expect, it } from 'vitest';
import type { Shape } from './topology/testing/contexts.js';
import { FakeCluster } from './topology/testing/fake-cluster.js';
import { freshNodes, primaries, share } from './topology/testing/shapes.js';
import { step } from './topology.js';

/** Runs passes against the fake cluster until one reports Ready; returns each pass's phase. */
async function converge(cluster: FakeCluster, shape: Shape, maxPasses = 10): Promise<string[]> {
  const phases: string[] = [];
  for (let pass = 0; pass < maxPasses; pass++) {
    const result = await step(cluster.context(shape));
    phases.push(result.phase);
    if (result.ready) return phases;
  }
  return phases;
}

describe('a pass over the cluster (step)', () => {
  it('forms a cluster from fresh pods: meet, assign slots, attach replicas, ready', async () => {
    const cluster = new FakeCluster(freshNodes(6));
    const shape = { size: 6, primaries: 3, replicasPerPrimary: 1 };
    expect(await converge(cluster, shape)).toEqual(['Meeting', 'AssigningSlots', 'Replicating', 'Ready']);
    expect([0, 1, 2].map((i) => cluster.slotsOf(`redis-${i}`).length)).toEqual([5461, 5461, 5462]);
    // Pods 3, 4, 5 run on Kubernetes nodes 0, 1, 2: the first two follow a primary on another node.
    expect([3, 4, 5].map((i) => cluster.primaryOf(`redis-${i}`))).toEqual(['redis-1', 'redis-0', 'redis-2']);
  });

  it('scales in: moves the leaving primary’s slots away, then forgets it', async () => {
    const cluster = new FakeCluster(primaries(4));
    const shape = { size: 3, primaries: 3, replicasPerPrimary: 0 };
    expect(await converge(cluster, shape)).toEqual([
      'MigratingSlots',
      'MigratingSlots',
      'Forgetting',
      'Ready',
    ]);
    const ready = await step(cluster.context(shape));
    expect(ready.removablePodsFrom).toBe(3);
    expect(ready.primaries).toBe(3);
  });

  it('serves a lost primary’s slots again, empty, only once the user accepts the loss', async () => {
    const cluster = new FakeCluster(
      [
        { pod: 'redis-0', slots: share(0, 3) },
        { pod: 'redis-1', slots: share(1, 3) },
        { pod: 'redis-2', id: 'b2', knows: ['redis-0', 'redis-1'] },
      ],
      [{ id: 'a2', ip: '10.0.0.9', slots: share(2, 3), failing: true, knownBy: ['redis-0', 'redis-1'] }],
    );
    const shape = { size: 3, primaries: 3, replicasPerPrimary: 0 };
    expect(await converge(cluster, shape, 2)).toEqual(['SlotsLost', 'SlotsLost']);
    expect(cluster.commands).toEqual([]);
    expect(await converge(cluster, { ...shape, acceptSlotLossOf: 'a2' })).toEqual([
      'Forgetting',
      'AssigningSlots',
      'Ready',
    ]);
    expect(cluster.slotsOf('redis-2')).toHaveLength(5462);
  });
});
