import { describe, expect, it } from 'vitest';
import { planMoves } from './plan-moves.js';
import { slotQuota } from './rebalance-slots.js';
import { shapedContext } from './testing/contexts.js';
import { FakeCluster } from './testing/fake-cluster.js';
import { primaries } from './testing/shapes.js';

const summary = (moves: ReturnType<typeof planMoves>) =>
  moves.map(
    (m) => `${m.from.pod.name}→${m.to.pod.name} ${m.slots.length} (${m.slots.at(0)}…${m.slots.at(-1)})`,
  );

describe('planMoves', () => {
  it('empties a leaving primary onto the neediest primaries, from its last slots', () => {
    const ctx = shapedContext(new FakeCluster(primaries(4)), {
      size: 3,
      primaries: 3,
      replicasPerPrimary: 0,
    });
    const [, , , leaving] = ctx.participants;
    const quota = slotQuota(ctx.targets);
    expect([...quota.values()]).toEqual([5461, 5461, 5462]);
    const moves = planMoves(ctx.targets, [leaving!], quota, 2048);
    // Each of the three keeps 4096 and needs about 1365 more; the budget lets 2048 go in this pass.
    expect(summary(moves)).toEqual([
      'redis-3→redis-2 1366 (15018…16383)',
      'redis-3→redis-0 682 (14336…15017)',
    ]);
  });

  it('levels primaries above their quota onto those below it, within the budget', () => {
    const ctx = shapedContext(
      new FakeCluster([
        { pod: 'redis-0', slots: '0-9999' },
        { pod: 'redis-1', slots: '10000-16383' },
        { pod: 'redis-2' },
      ]),
      { size: 3, primaries: 3, replicasPerPrimary: 0 },
    );
    const moves = planMoves(ctx.targets, [], slotQuota(ctx.targets), 10_000);
    expect(summary(moves)).toEqual(['redis-0→redis-2 4539 (5461…9999)', 'redis-1→redis-2 923 (15461…16383)']);
  });
});
