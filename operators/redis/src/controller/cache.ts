import { type ByObject, cacheOptionsFor } from '@opkit/controller-runtime/cache';
import {
  CONFIG_MAP,
  POD,
  POD_DISRUPTION_BUDGET,
  SERVICE,
  STATEFUL_SET,
} from '@opkit/controller-runtime/kinds';
import { MANAGED_BY } from './resources.js';

/**
 * What the operator caches besides its RedisClusters: only the StatefulSets, Services, ConfigMaps,
 * PodDisruptionBudgets and pods it manages (everything it makes carries this label, see `labelsFor`).
 * Watching every namespace, it would otherwise hold every one of them in the cluster. Secrets stay whole: a
 * RedisCluster may name a password Secret of the user's, which carries no label of ours. An object that loses
 * the label drops out of the cache as if deleted, and the next apply puts the label back.
 */
export const redisCache: ByObject = cacheOptionsFor(
  [STATEFUL_SET, SERVICE, CONFIG_MAP, POD_DISRUPTION_BUDGET, POD],
  { labelSelector: `app.kubernetes.io/managed-by=${MANAGED_BY}` },
);
