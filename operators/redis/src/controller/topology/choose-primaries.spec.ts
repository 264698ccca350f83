import { describe, expect, it } from 'vitest';
import { choosePrimaries, lackPrimaries } from './choose-primaries.js';
import { reachableContext } from './testing/contexts.js';
import { FakeCluster } from './testing/fake-cluster.js';
import { freshNodes } from './testing/shapes.js';

const podsOf = (targets: readonly { pod: { name: string } }[]) => targets.map((t) => t.pod.name);

describe('choosePrimaries', () => {
  it('keeps the primaries serving the most slots, listed by ordinal', () => {
    const cluster = new FakeCluster([
      { pod: 'redis-0', slots: '0-99' },
      { pod: 'redis-1', slots: '100-8191' },
      { pod: 'redis-2', slots: '8192-16383' },
      { pod: 'redis-3', slots: '' },
    ]);
    const ctx = reachableContext(cluster, { size: 4, primaries: 2, replicasPerPrimary: 1 });
    expect(podsOf(choosePrimaries(ctx))).toEqual(['redis-1', 'redis-2']);
  });

  it('completes them with empty masters, those already followed first, never one holding keys', () => {
    const cluster = new FakeCluster([
      { pod: 'redis-0', slots: '0-16383' },
      { pod: 'redis-1', keys: 3 },
      { pod: 'redis-2' },
      { pod: 'redis-3' },
      { pod: 'redis-4', replicaOf: 'redis-3' },
    ]);
    const ctx = reachableContext(cluster, { size: 5, primaries: 3, replicasPerPrimary: 1 });
    const targets = choosePrimaries(ctx);
    expect(podsOf(targets)).toEqual(['redis-0', 'redis-2', 'redis-3']);
    expect(lackPrimaries(ctx, targets)).toBeUndefined();
  });

  it('reports when there are not enough empty masters', () => {
    const cluster = new FakeCluster([
      ...freshNodes(2).map((n) => ({ ...n, knows: undefined })),
      { pod: 'redis-2', replicaOf: 'redis-0' },
    ]);
    const ctx = reachableContext(cluster, { size: 3, primaries: 3, replicasPerPrimary: 0 });
    const result = lackPrimaries(ctx, choosePrimaries(ctx));
    expect(result?.phase).toBe('Degraded');
    expect(result?.message).toBe('only 2 of 3 primaries possible: not enough empty Redis nodes');
  });
});
