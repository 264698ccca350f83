// One pass over the Redis Cluster itself (syncCluster), for this RedisCluster, and what it tells the user.

import { findStatusCondition } from '@opkit/controller-runtime';
import { primariesOf, replicasPerPrimary } from '../../api/v1/redis-cluster-shape.js';
import { ACCEPT_SLOT_LOSS_ANNOTATION, type PodInfo, type SyncResult, syncCluster } from '../topology.js';
import type { ClusterPass } from './context.js';
import type { Auth } from './password.js';
import { writeOperationFailed } from './status.js';

/** Actions repeated on every pass of a long step: an event only when the step starts, else a log line. */
const PER_PASS_ACTIONS = new Set(['NodesMet', 'SlotsMigrated', 'FailoverRequested']);

/** Runs syncCluster; a failure is recorded in the status and thrown again (the reconcile backs off). */
export async function syncTopology(
  pass: ClusterPass,
  pods: PodInfo[],
  auth: Auth,
  updateRevision: string | undefined,
): Promise<SyncResult> {
  const { cr, labels, logger: log } = pass;
  const started = Date.now();
  let sync: SyncResult;
  try {
    sync = await syncCluster({
      pods,
      size: cr.spec.size,
      primaries: primariesOf(cr),
      replicasPerPrimary: replicasPerPrimary(cr),
      password: auth.password,
      previousPassword: auth.previous,
      persistent: cr.spec.storage !== undefined,
      revisionKnown: updateRevision !== undefined,
      acceptSlotLossOf: cr.metadata.annotations?.[ACCEPT_SLOT_LOSS_ANNOTATION],
      log: (message, fields) => log?.info(message, { ...labels, ...fields }),
    });
  } catch (error) {
    // Never echo what was sent: errors name the command only (see ReplyError).
    await writeOperationFailed(pass, (error as Error).message);
    throw error;
  }
  log?.debug('cluster pass', {
    ...labels,
    phase: sync.phase,
    message: sync.message,
    ms: Date.now() - started,
  });
  return sync;
}

/**
 * Events tell the milestones; what every pass of a long step does goes to the log (the event recorder lets
 * 25 events per object through, then one per 5 minutes).
 */
export function announceActions({ events, logger: log, cr, labels }: ClusterPass, sync: SyncResult): void {
  const progressing = findStatusCondition(cr.status?.conditions, 'Progressing');
  const stepStarts = (phase: string) => sync.phase === phase && progressing?.reason !== phase;
  for (const action of sync.actions) {
    const event =
      !PER_PASS_ACTIONS.has(action.reason) ||
      (action.reason === 'SlotsMigrated' && stepStarts('MigratingSlots'));
    if (event) events.event(cr, 'Normal', action.reason, 'Reconcile', action.message);
    else log?.info(action.message, { ...labels, reason: action.reason });
  }
}
