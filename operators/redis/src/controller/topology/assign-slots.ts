// Phase 5: serve every slot: a new cluster gets an even split; slots nobody serves go to the primary the even
// split names.

import { evenShare, formatRanges, SLOTS, toRanges } from '../../redis/cluster.js';
import { clusterCall } from './commands.js';
import type { ShapedContext } from './context.js';
import type { Observed, SyncResult } from './types.js';

/** The unserved slots, grouped by the primary the even split gives them to. */
export function unservedSlotsByPrimary(
  targets: readonly Observed[],
  served: ReadonlySet<number>,
): Map<Observed, number[]> {
  const perTarget = new Map<Observed, number[]>();
  for (let s = 0; s < SLOTS; s++) {
    if (served.has(s)) continue;
    const index = targets.findIndex((_, i) => {
      const [from, to] = evenShare(i, targets.length);
      return s >= from && s <= to;
    });
    const t = targets[index]!;
    perTarget.set(t, [...(perTarget.get(t) ?? []), s]);
  }
  return perTarget;
}

export async function assignUnservedSlots(ctx: ShapedContext): Promise<SyncResult | undefined> {
  const { allSlots, targets } = ctx;
  if (allSlots.size >= SLOTS) return undefined;
  for (const [t, slots] of unservedSlotsByPrimary(targets, allSlots)) {
    const args = toRanges(slots).flat();
    await clusterCall(t, ['ADDSLOTSRANGE', ...args]);
    ctx.log('assigned slots', { pod: t.pod.name, slots: formatRanges(slots) });
  }
  const message =
    allSlots.size === 0
      ? `assigned ${SLOTS} slots over ${targets.length} primaries`
      : `assigned ${SLOTS - allSlots.size} unserved slot(s)`;
  ctx.actions.push({ reason: allSlots.size === 0 ? 'ClusterCreated' : 'SlotsAssigned', message });
  return ctx.report('AssigningSlots', message);
}
