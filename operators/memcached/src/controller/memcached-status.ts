import { findStatusCondition, setStatusConditions } from '@opkit/controller-runtime';
import {
  type ConditionUpdate,
  isPodReady,
  type OperationResult,
} from '@opkit/controller-runtime/controllerutil';
import type { Deployment, Pod } from '@opkit/controller-runtime/kinds';
import type { Memcached, MemcachedStatus } from '../api/v1beta1/memcached.js';

// What a Memcached's status says, from what the reconciler saw: pure functions, so each rule is a unit test.

/** The status of a Memcached the operator cannot run: no image is configured. */
export function imageNotConfiguredStatus(cr: Memcached, message: string): MemcachedStatus {
  const generation = cr.metadata.generation;
  const failed = {
    status: 'False' as const,
    reason: 'ImageNotConfigured',
    message,
    observedGeneration: generation,
  };
  return {
    ...cr.status,
    observedGeneration: generation,
    conditions: setStatusConditions(
      cr.status?.conditions,
      { type: 'Available', ...failed },
      { type: 'Degraded', ...failed, status: 'True' },
    ),
  };
}

/** What the reconciler saw of a Memcached's servers. */
export interface ObservedServers {
  /**
   * The Deployment as read, which this reconcile found as desired (a reconcile that changes it reports
   * nothing: the Deployment's status would still describe its old spec).
   */
  readonly deployment: Deployment;
  /** The Memcached's pods. */
  readonly pods: readonly Pod[];
  readonly port: number;
}

/** What a container waits for on its way to running: progress, not a problem worth naming in the status. */
const STARTING = new Set(['ContainerCreating', 'PodInitializing']);

/**
 * Why a Memcached is not Available. `ServersStarting` when it was, and since then either a rolling update is
 * replacing servers one at a time (`replacing`) or no server was lost, so only new servers are missing;
 * `ServersNotReady` from the moment a server is lost otherwise, or while a new Memcached comes up, until every
 * server is ready again; `NoServersReady` when none is.
 */
function notAvailableReason(
  before: MemcachedStatus | undefined,
  ready: number,
  lost: boolean,
  replacing: boolean,
): 'ServersStarting' | 'ServersNotReady' | 'NoServersReady' {
  if (ready === 0) return 'NoServersReady';
  const available = findStatusCondition(before?.conditions, 'Available');
  const wasServing =
    available?.status === 'True' || (available?.status === 'False' && available.reason === 'ServersStarting');
  return wasServing && (replacing || !lost) ? 'ServersStarting' : 'ServersNotReady';
}

/**
 * Whether a server the last status listed as ready is still there and no longer ready: a lost server. One
 * that went away is not lost: a scale-down, a rollout, an eviction or a deletion removed it and its
 * ReplicaSet starts a new one. Servers are told by identity (a pod keeps its name and address for life), not
 * by counting: the pod and Deployment caches follow separate watches, so a pod view from before a scale-down
 * and back up still shows a removed server, and the next one misses it before it shows its replacement.
 */
function lostServer(before: MemcachedStatus | undefined, live: readonly Pod[], port: number): boolean {
  const served = new Set(before?.servers ?? []);
  const listed = new Set(before?.nodes ?? []);
  return live.some(
    (p) =>
      !isPodReady(p) &&
      listed.has(p.metadata.name ?? '') &&
      p.status?.podIP !== undefined &&
      served.has(`${p.status.podIP}:${port}`),
  );
}

/**
 * Names in the order of their UTF-16 code units, as Go's `<` on strings orders them for ASCII names. Not
 * `localeCompare`: its order follows the locale of the machine (LANG), so two replicas, or one restarted
 * elsewhere, would list the same pods in different orders and rewrite each other's status.
 */
function codeUnitOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Available, Progressing and Degraded, the pods in `nodes` and the ready servers' addresses in `servers`.
 * Available only once the Deployment has rolled out every replica of its current spec and each is ready; a
 * Deployment whose rollout stalled (Progressing=False) makes the Memcached Degraded with its reason.
 */
export function observedStatus(cr: Memcached, seen: ObservedServers): MemcachedStatus {
  const replicas = cr.spec.replicas;
  const live = seen.pods
    .filter((p) => !p.metadata.deletionTimestamp)
    .sort((a, b) => codeUnitOrder(a.metadata.name ?? '', b.metadata.name ?? ''));
  const ready = live.filter(isPodReady);
  const status = seen.deployment.status ?? {};
  const rolledOut =
    status.observedGeneration === seen.deployment.metadata.generation &&
    (status.updatedReplicas ?? 0) === replicas &&
    (status.replicas ?? 0) === replicas;
  // Pods of an older template still running: a rolling update is replacing servers one at a time.
  const replacing =
    status.observedGeneration !== seen.deployment.metadata.generation ||
    (status.updatedReplicas ?? 0) < (status.replicas ?? 0);
  const allReady = rolledOut && ready.length === replicas && (status.readyReplicas ?? 0) === replicas;
  const stuck = status.conditions?.find((c) => c.type === 'Progressing' && c.status === 'False');
  const waiting = live.flatMap((p) =>
    (p.status?.containerStatuses ?? []).flatMap((s) => {
      const reason = s.state?.waiting?.reason;
      return reason && !STARTING.has(reason) ? [`${p.metadata.name}: ${reason}`] : [];
    }),
  );
  const notReady = `${ready.length} of ${replicas} servers ready${waiting.length ? ` (${waiting.join(', ')})` : ''}`;
  const stalled = {
    status: 'False' as const,
    reason: stuck?.reason ?? 'RolloutStuck',
    message: stuck?.message ?? notReady,
  };

  const available: ConditionUpdate = allReady
    ? {
        type: 'Available',
        status: 'True',
        reason: 'AllServersReady',
        message: `${ready.length} memcached servers ready`,
      }
    : {
        type: 'Available',
        status: 'False',
        reason: notAvailableReason(
          cr.status,
          ready.length,
          lostServer(cr.status, live, seen.port),
          replacing,
        ),
        message: notReady,
      };
  const progressing: ConditionUpdate = allReady
    ? {
        type: 'Progressing',
        status: 'False',
        reason: 'RolloutComplete',
        message: `Deployment ${cr.metadata.name} is rolled out`,
      }
    : stuck
      ? { type: 'Progressing', ...stalled }
      : { type: 'Progressing', status: 'True', reason: 'RollingOut', message: notReady };
  const degraded: ConditionUpdate = stuck
    ? { type: 'Degraded', ...stalled, status: 'True' }
    : { type: 'Degraded', status: 'False', reason: 'AsExpected', message: 'No failures' };
  const generation = cr.metadata.generation;
  return {
    conditions: setStatusConditions(
      cr.status?.conditions,
      ...[available, progressing, degraded].map((c) => ({ ...c, observedGeneration: generation })),
    ),
    nodes: live.flatMap((p) => (p.metadata.name ? [p.metadata.name] : [])),
    servers: ready.flatMap((p) => (p.status?.podIP ? [`${p.status.podIP}:${seen.port}`] : [])),
    readyReplicas: ready.length,
    observedGeneration: generation,
  };
}

/**
 * Whether a condition change is news for `kubectl describe`: availability gained or lost, degradation raised
 * or cleared. Progressing comes and goes with every rollout, a condition's first value is only news when it
 * is good (Available) or bad (Degraded), and waiting for new servers while the others serve (`ServersStarting`)
 * is a rollout too: each event is an API write, so the rest stay in the status. A server lost while waiting
 * is a loss all the same, though Available was False already.
 */
export function conditionEventType(
  previous: { readonly status: string; readonly reason?: string } | undefined,
  c: { readonly type: string; readonly status: string; readonly reason?: string },
): 'Normal' | 'Warning' | undefined {
  const before = previous?.status;
  if (c.type === 'Progressing' || c.status === 'Unknown') return undefined;
  if (before === c.status) {
    const lostWhileStarting =
      c.type === 'Available' &&
      c.status === 'False' &&
      previous?.reason === 'ServersStarting' &&
      c.reason !== 'ServersStarting';
    return lostWhileStarting ? 'Warning' : undefined;
  }
  if (c.type === 'Available' && c.status === 'False' && c.reason === 'ServersStarting') return undefined;
  if (c.type === 'Available' && c.status === 'True' && previous?.reason === 'ServersStarting')
    return undefined;
  const bad =
    (c.type === 'Degraded' && c.status === 'True') || (c.type === 'Available' && c.status === 'False');
  const good =
    (c.type === 'Available' && c.status === 'True') || (c.type === 'Degraded' && c.status === 'False');
  if (before === undefined || before === 'Unknown') {
    if (c.type === 'Available' && good) return 'Normal';
    if (c.type === 'Degraded' && bad) return 'Warning';
    return undefined;
  }
  return bad ? 'Warning' : 'Normal';
}

/**
 * The event for what applying the Deployment did, when that is news: the Deployment was brought back to the
 * spec after drift, or made again after it was deleted. Creating it for a new Memcached and changing it to a
 * changed spec are what the user asked for: the status reports the rollout and the Deployment records its own
 * scaling, so an event for them would be an API write per Memcached that tells nothing new.
 */
export function deploymentEvent(
  cr: Memcached,
  outcome: OperationResult,
): { readonly reason: string; readonly action: string; readonly note: string } | undefined {
  // A status of this generation from a reconcile that applied the Deployment: a change now is a repair.
  const specApplied =
    cr.status?.observedGeneration === cr.metadata.generation &&
    findStatusCondition(cr.status?.conditions, 'Available')?.reason !== 'ImageNotConfigured';
  if (outcome === 'unchanged' || !specApplied) return undefined;
  const name = `Deployment ${cr.metadata.name}`;
  return outcome === 'created'
    ? {
        reason: 'Recreated',
        action: 'CreateDeployment',
        // What the cache shows: a Deployment whose managed-by label was removed is missing from it too.
        note: `${name} was missing (deleted, or its managed-by label removed) and is applied again`,
      }
    : { reason: 'Updated', action: 'UpdateDeployment', note: `${name} brought back to the spec` };
}
