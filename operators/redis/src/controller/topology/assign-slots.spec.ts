import { describe, expect, it } from 'vitest';
import { assignUnservedSlots } from './assign-slots.js';
import { shapedContext } from './testing/contexts.js';
import { FakeCluster } from './testing/fake-cluster.js';
import { formedCluster, primaries } from './testing/shapes.js';

describe('assignUnservedSlots', () => {
  it('splits all slots evenly over the primaries of a new cluster', async () => {
    const cluster = new FakeCluster(primaries(3).map((n) => ({ ...n, slots: '' })));
    const result = await assignUnservedSlots(
      shapedContext(cluster, { size: 3, primaries: 3, replicasPerPrimary: 0 }),
    );
    expect(cluster.commands).toEqual([
      'redis-0: CLUSTER ADDSLOTSRANGE 0 5460',
      'redis-1: CLUSTER ADDSLOTSRANGE 5461 10921',
      'redis-2: CLUSTER ADDSLOTSRANGE 10922 16383',
    ]);
    expect(result?.phase).toBe('AssigningSlots');
    expect(result?.message).toBe('assigned 16384 slots over 3 primaries');
    expect(result?.actions).toEqual([
      { reason: 'ClusterCreated', message: 'assigned 16384 slots over 3 primaries' },
    ]);
  });

  it('gives slots nobody serves to the primary the even split names (a lost primary was forgotten)', async () => {
    const cluster = new FakeCluster([
      { pod: 'redis-0', slots: '0-5460' },
      { pod: 'redis-1', slots: '5461-10921' },
      { pod: 'redis-2', slots: '10922-16000' },
    ]);
    const result = await assignUnservedSlots(
      shapedContext(cluster, { size: 3, primaries: 3, replicasPerPrimary: 0 }),
    );
    expect(cluster.commands).toEqual(['redis-2: CLUSTER ADDSLOTSRANGE 16001 16383']);
    expect(result?.message).toBe('assigned 383 unserved slot(s)');
    expect(result?.actions).toEqual([{ reason: 'SlotsAssigned', message: 'assigned 383 unserved slot(s)' }]);
  });

  it('sends one range per run of slots', async () => {
    const cluster = new FakeCluster([
      { pod: 'redis-0', slots: '0-99 101-5460' },
      { pod: 'redis-1', slots: '5461-10921' },
      { pod: 'redis-2', slots: '10922-16382' },
    ]);
    await assignUnservedSlots(shapedContext(cluster, { size: 3, primaries: 3, replicasPerPrimary: 0 }));
    expect(cluster.commands).toEqual([
      'redis-0: CLUSTER ADDSLOTSRANGE 100 100',
      'redis-2: CLUSTER ADDSLOTSRANGE 16383 16383',
    ]);
  });

  it('does nothing while every slot is served', async () => {
    const cluster = new FakeCluster(formedCluster());
    expect(
      await assignUnservedSlots(shapedContext(cluster, { size: 6, primaries: 3, replicasPerPrimary: 1 })),
    ).toBeUndefined();
  });
});
