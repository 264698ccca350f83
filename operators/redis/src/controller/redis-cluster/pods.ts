// The StatefulSet's pods as the topology sees them, and the restart of one of them (rolling restart).

import { isConflict, isNotFound } from '@opkit/controller-runtime';
import { selectorFromLabels } from '@opkit/controller-runtime/cache';
import { isPodReady } from '@opkit/controller-runtime/controllerutil';
import { POD, type Pod } from '@opkit/controller-runtime/kinds';
import type { RedisCluster } from '../../api/v1/redis-cluster.js';
import { selectorFor } from '../resources.js';
import type { PodInfo, SyncResult } from '../topology.js';
import type { ClusterPass } from './context.js';

/** Pods carry the revision of the StatefulSet template they were created from. */
const REVISION_LABEL = 'controller-revision-hash';

function ordinalOf(cr: RedisCluster, pod: Pod): number | undefined {
  const match = pod.metadata.name?.match(/-(\d+)$/);
  return match && pod.metadata.name === `${cr.metadata.name}-${match[1]}` ? Number(match[1]) : undefined;
}

/** The cluster's pods not being deleted; outdated when the template revision is known and not theirs. */
export async function listPods(
  { client, cr, namespace }: ClusterPass,
  updateRevision: string | undefined,
): Promise<PodInfo[]> {
  return (
    await client.list<Pod>(POD, { namespace, labelSelector: selectorFromLabels(selectorFor(cr)) })
  ).items
    .filter((p) => !p.metadata.deletionTimestamp)
    .map((p): PodInfo | undefined => {
      const ordinal = ordinalOf(cr, p);
      return ordinal === undefined
        ? undefined
        : {
            name: p.metadata.name,
            uid: p.metadata.uid,
            ordinal,
            ip: p.status?.podIP,
            ready: isPodReady(p),
            nodeName: p.spec?.nodeName,
            outdated: updateRevision !== undefined && p.metadata.labels?.[REVISION_LABEL] !== updateRevision,
          };
    })
    .filter((p): p is PodInfo => p !== undefined);
}

/** Deletes the pod the rolling restart names; the StatefulSet recreates it from the current template. */
export async function restartPod(pass: ClusterPass, sync: SyncResult): Promise<void> {
  if (!sync.restartPod) return;
  const { client, events, metrics, logger: log, cr, namespace, labels } = pass;
  const { name, uid, role } = sync.restartPod;
  try {
    // The UID precondition: never the pod's successor, should this pass be late.
    await client.delete({ ...POD, name, namespace }, uid ? { preconditions: { uid } } : {});
    metrics.podRestarts.inc(labels);
    const message = `restarting ${role} ${name} to apply the current pod template (${sync.message})`;
    // One event for the roll (at its first pod), a log line for each pod.
    if (sync.restartPod.first) events.event(cr, 'Normal', 'RollingRestart', 'DeletePod', message);
    else log?.info(message, { ...labels, reason: 'RollingRestart' });
  } catch (error) {
    if (!isNotFound(error) && !isConflict(error)) throw error;
  }
}
