// Phase 1: forget nodes that belong to no pod (a pod that lost its data came back under a new ID), once they
// serve no slot; and, when the user accepts it, lost primaries whose slots nobody can serve any more. Only
// when every pod answers, so no live node is mistaken for a stale one.

import { formatRanges } from '../../redis/cluster.js';
import { clusterCall } from './commands.js';
import type { ReachableContext } from './context.js';
import { ACCEPT_SLOT_LOSS_ANNOTATION, type Observed, type SyncResult } from './types.js';

const everyPodAnswers = (ctx: ReachableContext) => ctx.observed.length === ctx.pods.length;

const podIds = (ctx: ReachableContext) => new Set(ctx.observed.map((o) => o.self.id));

// A replica cannot forget its own primary: it follows a live primary first (attachReplicas moves it).
const forgetters = (ctx: ReachableContext, id: string): Observed[] =>
  ctx.participants.filter((m) => m.self.primaryId !== id && m.view.some((v) => v.id === id));

async function forget(ctx: ReachableContext, id: string): Promise<void> {
  for (const m of forgetters(ctx, id))
    await clusterCall(m, ['FORGET', id], [/Unknown node/i, /forget myself/i]);
}

/**
 * A primary gone with its data (its pod came back under a new ID) and with no replica left to take over:
 * nobody serves its slots and nothing will until the user accepts that their keys are lost.
 */
export function lostPrimaries(ctx: ReachableContext): Map<string, readonly number[]> {
  const ids = podIds(ctx);
  const lost = new Map<string, readonly number[]>();
  for (const m of ctx.participants)
    for (const n of m.view)
      if (
        !ids.has(n.id) &&
        !n.handshake &&
        n.failing &&
        n.slots.length > 0 &&
        !ctx.participants.some((p) => p.self.primaryId === n.id)
      )
        lost.set(n.id, n.slots);
  return lost;
}

/** Reports lost primaries, and forgets those the user accepted the loss of. */
export async function forgetLostPrimaries(ctx: ReachableContext): Promise<SyncResult | undefined> {
  if (!everyPodAnswers(ctx)) return undefined;
  const lost = lostPrimaries(ctx);
  if (lost.size === 0) return undefined;
  const accepted = new Set((ctx.input.acceptSlotLossOf ?? '').split(',').map((id) => id.trim()));
  const forgiven = [...lost.keys()].filter((id) => accepted.has(id));
  if (forgiven.length === 0) {
    const described = [...lost].map(([id, slots]) => `${formatRanges(slots)} (node ${id})`).join(', ');
    return ctx.report(
      'SlotsLost',
      `slots ${described} were served by a primary that is gone with its data and had no replica: their keys ` +
        `are lost and no node serves them. To serve them again, empty, annotate the RedisCluster with ` +
        `${ACCEPT_SLOT_LOSS_ANNOTATION}=${[...lost.keys()].join(',')}`,
    );
  }
  for (const id of forgiven) {
    await forget(ctx, id);
    ctx.actions.push({
      reason: 'SlotLossAccepted',
      message: `forgot lost primary ${id}: its slots ${formatRanges(lost.get(id) ?? [])} are served again, empty`,
    });
    ctx.log('forgot lost primary', { nodeId: id });
  }
  return ctx.report(
    'Forgetting',
    `forgot ${forgiven.length} lost primary(ies); their slots are reassigned next`,
  );
}

/** Forgets nodes that belong to no pod and serve no slot, on every node that still knows them. */
export async function forgetStaleNodes(ctx: ReachableContext): Promise<SyncResult | undefined> {
  if (!everyPodAnswers(ctx)) return undefined;
  const ids = podIds(ctx);
  const servesSlots = (id: string) =>
    ctx.participants.some((p) => p.view.some((v) => v.id === id && v.slots.length > 0));
  const stale = new Set<string>();
  for (const m of ctx.participants)
    for (const n of m.view)
      if (!ids.has(n.id) && !n.handshake && !servesSlots(n.id) && forgetters(ctx, n.id).length > 0)
        stale.add(n.id);
  if (stale.size === 0) return undefined;
  for (const id of stale) {
    await forget(ctx, id);
    ctx.actions.push({ reason: 'NodeForgotten', message: `forgot node ${id}, which belongs to no pod` });
    ctx.log('forgot stale node', { nodeId: id });
  }
  return ctx.report('Forgetting', `forgot ${stale.size} stale node(s)`);
}
