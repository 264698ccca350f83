import {
  controllerManagedBy,
  type EventRecorder,
  isNotFound,
  type Logger,
  type Manager,
  type ObjectClient,
  type Reconciler,
  type Result,
  type Stored,
} from '@opkit/controller-runtime';
import { enqueueForInstanceLabel, type MapFunc } from '@opkit/controller-runtime/controller';
import {
  CONFIG_MAP,
  POD,
  POD_DISRUPTION_BUDGET,
  SECRET,
  SERVICE,
  type Secret,
  STATEFUL_SET,
} from '@opkit/controller-runtime/kinds';
import type { ResourcePolicyRule } from '@opkit/controller-runtime/rbac';
import { REDIS_CLUSTER, type RedisCluster } from '../api/v1/redis-cluster.js';
import { type ClusterPass, startPass } from './redis-cluster/context.js';
import { FailoverTracker } from './redis-cluster/failovers.js';
import { type ClusterMetrics, clusterMetrics, recordGauges, removeGauges } from './redis-cluster/metrics.js';
import { applySpecObjects, applyStatefulSet, scaleIn } from './redis-cluster/owned-objects.js';
import { dropPreviousPassword, resolveAuth } from './redis-cluster/password.js';
import { listPods, restartPod } from './redis-cluster/pods.js';
import {
  clusterStatus,
  requeueAfter,
  startingStatus,
  writeFailure,
  writeStatus,
} from './redis-cluster/status.js';
import { announceActions, syncTopology } from './redis-cluster/topology-pass.js';
import { ConfigInvalidError, ImageNotConfiguredError, imageFor, MANAGED_BY, redisConf } from './resources.js';

export { type ClusterMetrics, clusterMetrics } from './redis-cluster/metrics.js';

/**
 * Everything the RedisCluster controller does with the API, declared next to it (as kubebuilder markers are);
 * `nx run redis:manifests` turns it into config/rbac/role.yaml. Keep it in step with the controller.
 */
export const redisClusterControllerRbac: readonly ResourcePolicyRule[] = [
  {
    apiGroups: ['cache.example.com'],
    resources: ['redisclusters'],
    verbs: ['get', 'list', 'watch', 'update', 'patch'],
  },
  {
    apiGroups: ['cache.example.com'],
    resources: ['redisclusters/status'],
    verbs: ['get', 'update', 'patch'],
  },
  {
    apiGroups: ['apps'],
    resources: ['statefulsets'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  },
  {
    apiGroups: [''],
    resources: ['services', 'configmaps', 'secrets'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  },
  {
    apiGroups: ['policy'],
    resources: ['poddisruptionbudgets'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  },
  // delete: the rolling restart (pods are recreated by the StatefulSet from the current template).
  { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'delete'] },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];

export interface RedisClusterControllerOptions {
  /** @default 2 */
  readonly maxConcurrentReconciles?: number;
  /** The operator's environment (for RELATED_IMAGE_REDIS). @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** @default the manager's logger */
  readonly logger?: Logger;
}

/** The cache index of RedisClusters by the user's password Secret they name. */
export const AUTH_SECRET_FIELD = 'spec.auth.secretName';

/** The index function of {@link AUTH_SECRET_FIELD}. */
export function authSecretName(cr: Stored<RedisCluster>): string[] {
  return cr.spec.auth?.secretName ? [cr.spec.auth.secretName] : [];
}

/** A changed Secret brings back the RedisClusters that name it now, as the cache's index says. */
export const clustersNamingSecret: MapFunc<Secret> = async (secret, cache) => {
  const clusters = await cache.list(REDIS_CLUSTER, {
    namespace: secret.metadata.namespace,
    matchingFields: { [AUTH_SECRET_FIELD]: secret.metadata.name },
  });
  return clusters.items.map((cr) => ({ namespace: cr.metadata.namespace, name: cr.metadata.name }));
};

/**
 * Keeps, for every RedisCluster, a StatefulSet of Redis nodes with its headless and client Services,
 * redis.conf in a ConfigMap, the password in Secrets, a PodDisruptionBudget, and forms the Redis Cluster
 * itself over RESP: meet, assign slots, attach replicas, migrate slots on scaling, forget removed nodes.
 */
export function setupRedisClusterController(
  manager: Manager,
  options: RedisClusterControllerOptions = {},
): void {
  const metrics = clusterMetrics(manager.metrics.registry);
  const events = manager.eventRecorder('rediscluster-controller');
  const reconcile = redisClusterReconciler(manager.client, events, metrics, {
    env: options.env ?? process.env,
    logger: options.logger ?? manager.logger,
  });
  // Kept by the cache and given to the RedisCluster informer when it is made (the promise never rejects).
  void manager.cache.indexField<RedisCluster>(REDIS_CLUSTER, AUTH_SECRET_FIELD, authSecretName);
  controllerManagedBy(manager)
    .named('rediscluster')
    .for(REDIS_CLUSTER)
    .owns(STATEFUL_SET)
    .owns(SERVICE)
    .owns(CONFIG_MAP)
    .owns(SECRET)
    .owns(POD_DISRUPTION_BUDGET)
    .watches(POD, enqueueForInstanceLabel(MANAGED_BY))
    .watches(SECRET, clustersNamingSecret)
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 2 })
    .complete(reconcile);
}

/**
 * The Redis image and redis.conf for the spec; undefined when either cannot be had (the status says why).
 */
async function checkSpec(pass: ClusterPass): Promise<string | undefined> {
  let image: string;
  try {
    image = imageFor(pass.cr, pass.env);
  } catch (error) {
    if (!(error instanceof ImageNotConfiguredError)) throw error;
    await writeFailure(pass, { reason: 'ImageNotConfigured', message: error.message });
    return undefined;
  }
  try {
    redisConf(pass.cr);
  } catch (error) {
    if (!(error instanceof ConfigInvalidError)) throw error;
    await writeFailure(pass, { reason: 'ConfigInvalid', message: error.message });
    return undefined;
  }
  return image;
}

/**
 * One reconcile of an existing RedisCluster: the owned objects, then a pass over the Redis Cluster, then what
 * follows from it (events, failovers, a pod restart, the password rotation's end, scale-in), then the status.
 */
async function reconcileCluster(pass: ClusterPass, failovers: FailoverTracker): Promise<Result | undefined> {
  const image = await checkSpec(pass);
  if (image === undefined) return undefined;
  const auth = await resolveAuth(pass);
  if (!auth) return { requeueAfterMs: 30_000 };
  await applySpecObjects(pass);
  const statefulSet = await applyStatefulSet(pass, image, auth.password);
  const pods = await listPods(pass, statefulSet.updateRevision);

  const sync = await syncTopology(pass, pods, auth, statefulSet.updateRevision);
  announceActions(pass, sync);
  failovers.observe(pass, sync);
  await restartPod(pass, sync);
  await dropPreviousPassword(pass, auth, sync);
  const replicas = await scaleIn(pass, statefulSet.replicas, sync);

  recordGauges(pass.metrics, pass.labels, sync);
  await writeStatus(pass, pass.cr, clusterStatus(pass.cr, sync, replicas, auth.secretProblem));
  return requeueAfter(pass.cr, sync, replicas, auth.secretProblem);
}

export function redisClusterReconciler(
  client: ObjectClient,
  events: EventRecorder,
  metrics: ClusterMetrics,
  options: {
    env: NodeJS.ProcessEnv;
    logger?: Logger;
  },
): Reconciler {
  const deps = { client, events, metrics, ...options };
  const failovers = new FailoverTracker();
  return async (req) => {
    let cr: Stored<RedisCluster>;
    try {
      cr = await client.get<RedisCluster>(REDIS_CLUSTER, req.name, req.namespace);
    } catch (error) {
      if (isNotFound(error)) {
        failovers.forget(`${req.namespace}/${req.name}`);
        removeGauges(metrics, { namespace: req.namespace ?? '', name: req.name });
        return undefined; // deleted; owned objects go by garbage collection
      }
      throw error;
    }
    if (cr.metadata.deletionTimestamp) return undefined;
    if (!cr.status?.conditions?.length) {
      await writeStatus(deps, cr, startingStatus(cr));
      return undefined; // the status write brings the object back with its conditions
    }
    return reconcileCluster(startPass(deps, cr), failovers);
  };
}
