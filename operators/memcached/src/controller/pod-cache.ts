import type { KubeObject, Stored } from '@opkit/controller-runtime';
import type { ObjectCacheOptions } from '@opkit/controller-runtime/cache';
import type { Pod } from '@opkit/controller-runtime/kinds';
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

/**
 * What the operator caches of pods: its own memcached pods only (watching every namespace, it would otherwise
 * hold every pod of the cluster), each reduced to {@link serverFields}.
 */
export const memcachedPodCache: ObjectCacheOptions = {
  labelSelector: `app.kubernetes.io/managed-by=${MANAGED_BY}`,
  transform: (obj: Stored<KubeObject>) => serverFields(obj as Stored<Pod>),
};
