// Phase 2: introduce nodes to each other (CLUSTER MEET), also after a pod came back with a new IP; then wait
// until every node agrees on who is in the cluster and in which role.

import { REDIS_PORT } from '../resources.js';
import { clusterCall } from './commands.js';
import type { ReachableContext } from './context.js';
import type { Observed, SyncResult } from './types.js';

const knows = (a: Observed, b: Observed) =>
  a.view.some((n) => n.ip === b.ip && (n.id === b.self.id || n.handshake));

/** Every pair that does not know each other meets directly: gossip alone takes seconds to tell everyone. */
export async function meetNodes(ctx: ReachableContext): Promise<SyncResult | undefined> {
  const { participants } = ctx;
  const meetings: Promise<void>[] = [];
  for (const [i, a] of participants.entries()) {
    for (const b of participants.slice(i + 1)) {
      if (knows(a, b) && knows(b, a)) continue;
      // The node that does not know the other sends MEET; the handshake teaches both.
      const [from, to] = knows(a, b) ? [b, a] : [a, b];
      meetings.push(clusterCall(from, ['MEET', to.ip, REDIS_PORT]));
    }
  }
  await Promise.all(meetings);
  const met = meetings.length;
  if (met === 0) return undefined;
  ctx.actions.push({ reason: 'NodesMet', message: `introduced ${met} node link(s) with CLUSTER MEET` });
  // The count goes to the event; the status says what is going on, so a next pass that meets fewer nodes
  // does not write it again.
  return ctx.report('Meeting', 'introducing the nodes to each other with CLUSTER MEET');
}

/** Waits while some node misses another, sees it at another IP, failing, or in another role. */
export function awaitAgreement(ctx: ReachableContext): SyncResult | undefined {
  const { participants, anchor } = ctx;
  const disagreeing = participants.filter((o) =>
    participants.some((p) => {
      const n = o.view.find((v) => v.id === p.self.id);
      return !n || n.ip !== p.ip || n.failing || (n.role === 'replica') !== (p.self.role === 'replica');
    }),
  );
  if (disagreeing.length === 0) return undefined;
  const failing = participants.filter((p) => anchor.view.find((n) => n.id === p.self.id)?.failing);
  return ctx.report(
    failing.length > 0 ? 'Degraded' : 'Joining',
    failing.length > 0
      ? `nodes marked failing: ${failing.map((f) => f.pod.name).join(', ')}`
      : // Not how many: that falls as gossip spreads, and each new count would be one more status write.
        'waiting for every node to agree on the cluster membership',
  );
}
