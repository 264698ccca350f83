// Phase 4: choose the primaries: those serving the most slots, then empty masters by ordinal.

import { followers } from './commands.js';
import type { ReachableContext } from './context.js';
import type { Observed, SyncResult } from './types.js';

/** The primaries, by ordinal; fewer than asked for when there are not enough empty masters. */
export function choosePrimaries(ctx: ReachableContext): Observed[] {
  const { members, input } = ctx;
  const holders = members
    .filter((m) => m.self.role === 'primary' && m.self.slots.length > 0)
    .sort((a, b) => b.self.slots.length - a.self.slots.length || a.pod.ordinal - b.pod.ordinal);
  let targets = holders.slice(0, input.primaries);
  if (targets.length < input.primaries) {
    const empties = members.filter(
      (m) => m.self.role === 'primary' && m.self.slots.length === 0 && m.keys === 0 && !targets.includes(m),
    );
    // An empty master already followed by replicas is the better new primary.
    empties.sort(
      (a, b) => followers(members, b).length - followers(members, a).length || a.pod.ordinal - b.pod.ordinal,
    );
    targets = [...targets, ...empties.slice(0, input.primaries - targets.length)];
  }
  targets.sort((a, b) => a.pod.ordinal - b.pod.ordinal);
  return targets;
}

/** Reports a shape that cannot be had: fewer primaries possible than asked for. */
export function lackPrimaries(ctx: ReachableContext, targets: readonly Observed[]): SyncResult | undefined {
  const { input } = ctx;
  if (targets.length >= input.primaries) return undefined;
  return ctx.report(
    'Degraded',
    `only ${targets.length} of ${input.primaries} primaries possible: not enough empty Redis nodes`,
  );
}
