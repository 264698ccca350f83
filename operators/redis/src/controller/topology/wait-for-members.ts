// Phase 0: every member pod must be up and answering before the topology is touched.

import { podName, type ReachableContext, type TopologyContext } from './context.js';
import type { SyncResult } from './types.js';

/** Some member did not answer: says which, and whether that is a formed cluster's failure or a start. */
export function waitForMembers(ctx: TopologyContext): SyncResult {
  const { input, members, memberPods, byPod, participants, pods } = ctx;
  // By ordinal, not by the pods there are: a pod deleted for a restart is missing before it is recreated.
  const answering = new Set(members.map((m) => m.pod.ordinal));
  const missing = Array.from({ length: input.size }, (_, ordinal) => ordinal)
    .filter((ordinal) => !answering.has(ordinal))
    .flatMap((ordinal) => podName(pods, ordinal) ?? []);
  const message = `${members.length} of ${input.size} Redis nodes reachable${missing.length ? ` (waiting for ${missing.join(', ')})` : ''}`;
  // Nodes of a formed cluster that stop answering are a failure; new pods starting up are not.
  const knownIps = new Set(participants.flatMap((o) => o.view.map((n) => n.ip)));
  const formed = memberPods.some((p) => !byPod.has(p.name) && p.ip !== undefined && knownIps.has(p.ip));
  return ctx.report(formed ? 'Degraded' : 'WaitingForPods', message);
}

/** The context with its anchor, once every member answered; undefined while some member is missing. */
export function reachable(ctx: TopologyContext): ReachableContext | undefined {
  const { anchor } = ctx;
  if (ctx.members.length < ctx.input.size || !anchor) return undefined;
  return { ...ctx, anchor };
}
