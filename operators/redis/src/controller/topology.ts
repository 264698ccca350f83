// Forms and keeps a Redis Cluster from the operator process, talking RESP to every pod. Every pass reads the
// cluster's own state first (CLUSTER NODES from each node) and runs the phases in order until one acts or
// finds something to wait for, so a reconcile that dies half-way (operator killed, node restarted) is
// resumed by the next one. The phases live in topology/, one module each.

import { assignUnservedSlots } from './topology/assign-slots.js';
import { attachReplicas, layoutReplicas } from './topology/attach-replicas.js';
import { awaitHealthy, reportReady } from './topology/await-healthy.js';
import { choosePrimaries, lackPrimaries } from './topology/choose-primaries.js';
import { createContext, type ShapedContext, type TopologyContext } from './topology/context.js';
import { forgetLeavingNodes } from './topology/forget-leaving-nodes.js';
import { forgetLostPrimaries, forgetStaleNodes } from './topology/forget-nodes.js';
import { awaitAgreement, meetNodes } from './topology/meet-nodes.js';
import { observe, switchPassword } from './topology/observe.js';
import { rebalanceSlots } from './topology/rebalance-slots.js';
import { resumeMigrations } from './topology/resume-migrations.js';
import { rollingRestart } from './topology/rolling-restart.js';
import type { Observed, SyncInput, SyncResult } from './topology/types.js';
import { reachable, waitForMembers } from './topology/wait-for-members.js';

export {
  ACCEPT_SLOT_LOSS_ANNOTATION,
  type NodeReport,
  type Phase,
  type PodInfo,
  type SyncInput,
  type SyncResult,
} from './topology/types.js';

/** One pass over the cluster: observe, then take the first step that is missing. */
export async function syncCluster(input: SyncInput): Promise<SyncResult> {
  const log = input.log ?? (() => {});
  const pods = [...input.pods].sort((a, b) => a.ordinal - b.ordinal);
  const observed = (
    await Promise.all(pods.map((p) => observe(p, input.password, input.previousPassword)))
  ).filter((o): o is Observed => o !== undefined);
  try {
    const switched = await switchPassword(observed, input.password);
    const result = await step(createContext(input, pods, observed, log));
    return switched > 0
      ? {
          ...result,
          actions: [
            { reason: 'PasswordChanged', message: `${switched} node(s) switched to the new password` },
            ...result.actions,
          ],
        }
      : result;
  } finally {
    for (const o of observed) o.connection.close();
  }
}

/** The phases in order: the first that acts or has something to wait for ends the pass with its report. */
export async function step(context: TopologyContext): Promise<SyncResult> {
  const ctx = reachable(context);
  if (!ctx) return waitForMembers(context);
  const membership =
    (await forgetLostPrimaries(ctx)) ??
    (await forgetStaleNodes(ctx)) ??
    (await meetNodes(ctx)) ??
    awaitAgreement(ctx) ??
    (await resumeMigrations(ctx));
  if (membership) return membership;

  const targets = choosePrimaries(ctx);
  const impossible = lackPrimaries(ctx, targets);
  if (impossible) return impossible;
  const shaped: ShapedContext = { ...ctx, targets };
  const slots = (await assignUnservedSlots(shaped)) ?? (await rebalanceSlots(shaped));
  if (slots) return slots;

  const layout = layoutReplicas(shaped);
  return (
    (await attachReplicas(shaped, layout)) ??
    (await forgetLeavingNodes(shaped)) ??
    awaitHealthy(shaped, layout) ??
    (await rollingRestart(shaped)) ??
    reportReady(shaped, layout)
  );
}
