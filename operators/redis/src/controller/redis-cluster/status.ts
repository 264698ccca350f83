// The RedisCluster's status: its conditions from a pass over the cluster, and how it is written (with an
// event for each condition that changes).

import { type Condition, type Result, type Stored, setStatusConditions } from '@opkit/controller-runtime';
import {
  type ConditionEventType,
  type ConditionUpdate,
  patchStatusWithConditionEvents,
} from '@opkit/controller-runtime/controllerutil';
import { REDIS_CLUSTER, type RedisCluster, type RedisClusterStatus } from '../../api/v1/redis-cluster.js';
import { SLOTS } from '../../redis/cluster.js';
import { passwordSecretName } from '../resources.js';
import type { SyncResult } from '../topology.js';
import type { ClusterPass, ReconcilerDeps } from './context.js';

/** A condition reason and message. */
export interface Problem {
  readonly reason: string;
  readonly message: string;
}

/** One of the RedisCluster's three conditions, for `setStatusConditions`. */
export function condition(
  type: 'Available' | 'Progressing' | 'Degraded',
  status: Condition['status'],
  reason: string,
  message: string,
  generation: number | undefined,
): ConditionUpdate {
  return { type, status, reason, message, observedGeneration: generation };
}

/**
 * Patches the status subresource unless `next` says nothing new; then an event for each condition whose
 * status changed: a warning for Degraded=True and Available=False, none for Available=Unknown (the start).
 * A status with another number of members is always written: a list of another length is no subset, and every
 * status written here carries a members list when the object has one (the first carries none, but new
 * conditions).
 */
export async function writeStatus(
  { client, events }: Pick<ReconcilerDeps, 'client' | 'events'>,
  cr: Stored<RedisCluster>,
  next: RedisClusterStatus,
): Promise<void> {
  await patchStatusWithConditionEvents(client, events, REDIS_CLUSTER, cr, next, redisConditionEvent);
}

/** A warning for Degraded=True and Available=False, no event for Available=Unknown (the start) nor for a new reason. */
const redisConditionEvent: ConditionEventType = (previous, c) => {
  if (previous?.status === c.status) return undefined;
  if (c.type === 'Available' && c.status === 'Unknown') return undefined;
  const warning =
    (c.type === 'Degraded' && c.status === 'True') || (c.type === 'Available' && c.status === 'False');
  return warning ? 'Warning' : 'Normal';
};

/** The first status of a new RedisCluster. */
export function startingStatus(cr: RedisCluster): RedisClusterStatus {
  return {
    conditions: setStatusConditions(
      cr.status?.conditions,
      condition('Available', 'Unknown', 'Reconciling', 'Starting reconciliation', cr.metadata.generation),
      condition('Progressing', 'True', 'Reconciling', 'Starting reconciliation', cr.metadata.generation),
    ),
  };
}

/** Nothing can run (no image, an invalid config, no password): unavailable and degraded, for `problem`. */
export async function writeFailure(pass: ClusterPass, { reason, message }: Problem): Promise<void> {
  const { cr, generation } = pass;
  await writeStatus(pass, cr, {
    ...cr.status,
    observedGeneration: generation,
    conditions: setStatusConditions(
      cr.status?.conditions,
      condition('Available', 'False', reason, message, generation),
      condition('Degraded', 'True', reason, message, generation),
    ),
  });
}

/** A command to Redis failed: still progressing, degraded. */
export async function writeOperationFailed(pass: ClusterPass, message: string): Promise<void> {
  const { cr, generation } = pass;
  await writeStatus(pass, cr, {
    ...cr.status,
    observedGeneration: generation,
    conditions: setStatusConditions(
      cr.status?.conditions,
      condition('Progressing', 'True', 'ClusterOperationFailed', message, generation),
      condition('Degraded', 'True', 'ClusterOperationFailed', message, generation),
    ),
  });
}

/** The pass is done with the cluster: every pod scaled in that may go, and the shape ready. */
export const settled = (cr: RedisCluster, sync: SyncResult, replicas: number) =>
  sync.ready && replicas === cr.spec.size;

/** Why the cluster does not serve every slot, from its own CLUSTER INFO (what is being done is Progressing's). */
function unavailableMessage(sync: SyncResult): string {
  if (sync.clusterState === 'unknown') return 'no Redis node of the cluster answers';
  const slots =
    sync.slotsAssigned === 0 ? 'no slots assigned' : `${sync.slotsAssigned} of ${SLOTS} slots assigned`;
  return `cluster_state:${sync.clusterState}, ${slots}`;
}

/** The status after a pass over the cluster. */
export function clusterStatus(
  cr: Stored<RedisCluster>,
  sync: SyncResult,
  replicas: number,
  secretProblem: Problem | undefined,
): RedisClusterStatus {
  const generation = cr.metadata.generation;
  const available = sync.clusterState === 'ok' && sync.slotsAssigned === SLOTS;
  const conditions = setStatusConditions(
    cr.status?.conditions,
    available
      ? condition('Available', 'True', 'ClusterOK', `cluster_state:ok, all ${SLOTS} slots served`, generation)
      : condition(
          'Available',
          'False',
          sync.slotsAssigned === 0 ? 'ClusterNotFormed' : 'ClusterFail',
          unavailableMessage(sync),
          generation,
        ),
    settled(cr, sync, replicas)
      ? condition('Progressing', 'False', 'Ready', sync.message, generation)
      : condition('Progressing', 'True', sync.phase, sync.message, generation),
    secretProblem
      ? condition('Degraded', 'True', secretProblem.reason, secretProblem.message, generation)
      : sync.phase === 'Degraded'
        ? condition('Degraded', 'True', 'NodesFailing', sync.message, generation)
        : sync.phase === 'SlotsLost'
          ? condition('Degraded', 'True', 'SlotsLost', sync.message, generation)
          : condition('Degraded', 'False', 'AsExpected', 'No failures', generation),
  );
  return {
    conditions,
    nodes: sync.members.map((m) => m.pod),
    members: sync.members,
    clusterState: sync.clusterState,
    primaries: sync.primaries,
    readyNodes: sync.readyNodes,
    slotsAssigned: sync.slotsAssigned,
    secretName: passwordSecretName(cr),
    observedGeneration: generation,
  };
}

/** When to look again: seldom once settled or waiting for the user, at once while slots move. */
export function requeueAfter(
  cr: RedisCluster,
  sync: SyncResult,
  replicas: number,
  secretProblem: Problem | undefined,
): Result {
  if (settled(cr, sync, replicas)) return { requeueAfterMs: secretProblem ? 30_000 : 10_000 };
  // Waiting for the user: no point in asking Redis every second.
  if (sync.phase === 'RestartBlocked' || sync.phase === 'SlotsLost') return { requeueAfterMs: 30_000 };
  return { requeueAfterMs: sync.phase === 'MigratingSlots' ? 100 : 1000 };
}
