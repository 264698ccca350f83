import type { Stored } from '@opkit/controller-runtime';
import { type ByObject, cacheOptionsFor } from '@opkit/controller-runtime/cache';
import { DEPLOYMENT, POD, POD_DISRUPTION_BUDGET, type Pod, SERVICE } from '@opkit/controller-runtime/kinds';
import { MANAGED_BY } from './resources.js';

/**
 * Of each memcached pod, only what `observedStatus` and the pod watch read: identity, labels, whether it is
 * being deleted, its Ready condition, its address and why its containers wait. A full pod is about 3 KB of
 * JSON, this about a fifth of it.
 */
export function serverFields(pod: Stored<Pod>): Stored<Pod> {
  const { name, namespace, uid, resourceVersion, labels, deletionTimestamp } = pod.metadata;
  const status = pod.status ?? {};
  return {
    apiVersion: pod.apiVersion,
    kind: pod.kind,
    metadata: { name, namespace, uid, resourceVersion, labels, deletionTimestamp },
    status: {
      conditions: status.conditions
        ?.filter((c) => c.type === 'Ready')
        .map(({ type, status }) => ({ type, status })),
      podIP: status.podIP,
      containerStatuses: status.containerStatuses?.map((s) => ({
        name: s.name,
        image: s.image,
        imageID: s.imageID,
        ready: s.ready,
        restartCount: s.restartCount,
        ...(s.state?.waiting ? { state: { waiting: { reason: s.state.waiting.reason } } } : {}),
      })),
    },
  };
}

/** Everything the operator makes carries this label (see `labelsFor`), and its cache selects by it. */
const MANAGED_BY_US = `app.kubernetes.io/managed-by=${MANAGED_BY}`;

/**
 * What the operator caches besides its Memcacheds: only the Deployments, Services, PodDisruptionBudgets and
 * pods it manages, the pods cut to {@link serverFields}. Watching every namespace, it would otherwise hold
 * every one of them in the cluster and decode each of their changes. An object that loses the label drops out
 * of the cache as if deleted, and the next apply puts the label back.
 */
export const memcachedCache: ByObject = [
  ...cacheOptionsFor([DEPLOYMENT, SERVICE, POD_DISRUPTION_BUDGET], { labelSelector: MANAGED_BY_US }),
  ...cacheOptionsFor([POD], { labelSelector: MANAGED_BY_US, transform: serverFields }),
];
