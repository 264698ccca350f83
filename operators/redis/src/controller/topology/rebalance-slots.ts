// Phase 6: move slots: off primaries that must go (leaving pods, surplus primaries), then evenly over the rest.

import { evenShare } from '../../redis/cluster.js';
import { clusterBusy } from './commands.js';
import type { ShapedContext } from './context.js';
import { planMoves, type SlotMove } from './plan-moves.js';
import { moveSlots } from './slot-migration.js';
import type { Observed, SyncResult } from './types.js';

/** Each primary's share of an even split. */
export function slotQuota(targets: readonly Observed[]): Map<Observed, number> {
  return new Map(
    targets.map((t, i) => [t, evenShare(i, targets.length)[1] - evenShare(i, targets.length)[0] + 1]),
  );
}

/**
 * Sources work in parallel, each through its moves in turn (a primary runs one MIGRATE at a time anyway).
 * Not when a node both gives and takes: its epoch bump as a target could outrank, on the other nodes, a
 * claim it has not yet acknowledged as a source.
 */
export function migrationLanes(moves: readonly SlotMove[]): SlotMove[][] {
  const givers = new Set(moves.map((m) => m.from));
  return moves.some((m) => givers.has(m.to))
    ? [[...moves]]
    : [...givers].map((g) => moves.filter((m) => m.from === g));
}

export async function rebalanceSlots(ctx: ShapedContext): Promise<SyncResult | undefined> {
  const { participants, targets, input } = ctx;
  const sources = participants.filter((o) => o.self.slots.length > 0 && !targets.includes(o));
  const quota = slotQuota(targets);
  const deficit = (t: Observed) => quota.get(t)! - t.self.slots.length;
  const unbalanced = targets.some((t) => deficit(t) > Math.ceil(quota.get(t)! * 0.05));
  if (sources.length === 0 && !unbalanced) return undefined;
  const moves = planMoves(targets, sources, quota, input.migrationBatch ?? 2048);
  // A node that just joined (or rejoined) reports cluster_state:fail for a moment and refuses the keys
  // MIGRATE sends it (CLUSTERDOWN): wait for every node a move touches.
  const notOk = [...new Set(moves.flatMap((m) => [m.from, m.to]))].filter(
    (o) => o.info.cluster_state !== 'ok',
  );
  if (notOk.length > 0) {
    return ctx.report(
      'Settling',
      `waiting for cluster_state:ok on ${notOk.map((o) => o.pod.name).join(', ')} before moving slots`,
    );
  }
  // Slots to move: all of the sources', and the surplus of primaries above their quota.
  const remaining =
    sources.reduce((n, s) => n + s.self.slots.length, 0) +
    targets.reduce((n, t) => n + Math.max(0, -deficit(t)), 0);
  const outcomes = await Promise.allSettled(
    migrationLanes(moves).map(async (lane) => {
      for (const { from, to, slots } of lane) {
        await moveSlots(from, to, slots, input.password);
        ctx.log('migrated slots', { from: from.pod.name, to: to.pod.name, slots: slots.length });
      }
    }),
  );
  const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
  if (failures.length > 0 && failures.every(clusterBusy)) {
    // A node briefly not serving (cluster_state:fail while it learns of a change): the open slots are
    // finished by resumeMigrations on the next pass.
    return ctx.report('Settling', `slot migration paused: ${(failures[0] as Error).message}`, {
      migrationsInProgress: remaining,
    });
  }
  if (failures.length > 0) throw failures[0];
  const moved = moves.reduce((n, m) => n + m.slots.length, 0);
  ctx.actions.push({
    reason: 'SlotsMigrated',
    message: moves.map((m) => `${m.slots.length} slots ${m.from.pod.name} → ${m.to.pod.name}`).join(', '),
  });
  return ctx.report(
    'MigratingSlots',
    `migrated ${moved} slot(s); about ${Math.max(0, remaining - moved)} to go`,
    {
      migrationsInProgress: Math.max(0, remaining - moved),
    },
  );
}
