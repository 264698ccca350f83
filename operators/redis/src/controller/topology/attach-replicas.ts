// Phase 7: replicas: every other member follows a primary; each primary gets replicasPerPrimary of them,
// preferably on another Kubernetes node.

import { replicaQuota } from '../../api/v1/redis-cluster-shape.js';
import { clusterCall, followers } from './commands.js';
import type { ShapedContext } from './context.js';
import type { Observed, SyncResult } from './types.js';

/** Which replicas each primary keeps, how many it should have, and the members free to follow another. */
export interface ReplicaLayout {
  /** Primary → the replicas it keeps; attachReplicas adds those it attaches. */
  readonly kept: Map<Observed, Observed[]>;
  readonly replicaTarget: (primary: Observed) => number;
  /** Replicas beyond their primary's share, followers of leaving nodes and empty masters. */
  readonly movable: Observed[];
}

export function layoutReplicas(ctx: ShapedContext): ReplicaLayout {
  const { members, targets, input } = ctx;
  const kept = new Map<Observed, Observed[]>(targets.map((t) => [t, []]));
  // A size that does not divide evenly gives some primaries one replica more than the others: those that
  // already have the most followers, so no replica moves from one pass (or failover) to the next.
  const byFollowers = [...targets].sort(
    (a, b) =>
      followers(members, b).length - followers(members, a).length || targets.indexOf(a) - targets.indexOf(b),
  );
  const replicaTarget = (t: Observed) =>
    Math.min(input.replicasPerPrimary, replicaQuota(input.size, targets.length, byFollowers.indexOf(t)));
  const pool: Observed[] = [];
  for (const m of members) {
    if (targets.includes(m)) continue;
    const primary = targets.find((t) => t.self.id === m.self.primaryId);
    if (m.self.role === 'replica' && primary && kept.get(primary)!.length < replicaTarget(primary)) {
      kept.get(primary)!.push(m);
    } else {
      pool.push(m);
    }
  }
  // Followers of leaving nodes and empty masters are re-homed; a master with keys or slots is left alone.
  const movable = pool.filter(
    (m) => m.self.role === 'replica' || (m.self.slots.length === 0 && m.keys === 0),
  );
  return { kept, replicaTarget, movable };
}

/** The primaries still short of replicas. */
export function primariesShortOfReplicas(ctx: ShapedContext, layout: ReplicaLayout): Observed[] {
  return ctx.targets.filter((t) => layout.kept.get(t)!.length < layout.replicaTarget(t));
}

/** Gives the primary with the fewest replicas one more, until none is short or no member is free. */
export async function attachReplicas(
  ctx: ShapedContext,
  layout: ReplicaLayout,
): Promise<SyncResult | undefined> {
  const { kept, replicaTarget, movable } = layout;
  let attached = 0;
  for (;;) {
    const short = ctx.targets
      .filter((t) => kept.get(t)!.length < replicaTarget(t))
      .sort((a, b) => kept.get(a)!.length - kept.get(b)!.length)[0];
    if (!short || movable.length === 0) break;
    const pick =
      movable.find((m) => m.pod.nodeName !== short.pod.nodeName && m.self.primaryId === short.self.id) ??
      movable.find((m) => m.pod.nodeName !== short.pod.nodeName) ??
      movable[0]!;
    movable.splice(movable.indexOf(pick), 1);
    kept.get(short)!.push(pick);
    if (pick.self.primaryId !== short.self.id) {
      await clusterCall(pick, ['REPLICATE', short.self.id]);
      attached++;
      ctx.log('attached replica', { pod: pick.pod.name, primary: short.pod.name });
    }
  }
  if (attached === 0) return undefined;
  ctx.actions.push({
    reason: 'ReplicasAttached',
    message: `attached ${attached} replica(s) to their primaries`,
  });
  return ctx.report('Replicating', `attached ${attached} replica(s)`);
}
