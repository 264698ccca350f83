import {
  type Client,
  type Condition,
  controllerManagedBy,
  type EventRecorder,
  findStatusCondition,
  isNotFound,
  isSubset,
  type KubeObject,
  type Logger,
  type Manager,
  type Reconciler,
  type Result,
  selectorFromLabels,
  setStatusCondition,
} from '@opkit/controller-runtime';
import { Counter, Gauge, type Registry } from 'prom-client';
import {
  primariesOf,
  REDIS_CLUSTER,
  type RedisCluster,
  type RedisClusterStatus,
  replicasPerPrimary,
} from '../api/v1/index.js';
import {
  authConf,
  desiredAuthConfSecret,
  desiredClientService,
  desiredConfigMap,
  desiredHeadlessService,
  desiredPasswordSecret,
  desiredPodDisruptionBudget,
  desiredStatefulSet,
  digest,
  generatePassword,
  ImageNotConfiguredError,
  imageFor,
  MANAGED_BY,
  names,
  passwordSecretName,
  redisConf,
  selectorFor,
} from './resources.js';
import { type PodInfo, type SyncResult, syncCluster } from './topology.js';

const STATEFUL_SET = { apiVersion: 'apps/v1', kind: 'StatefulSet' } as const;
const SERVICE = { apiVersion: 'v1', kind: 'Service' } as const;
const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const PDB = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' } as const;
const POD = { apiVersion: 'v1', kind: 'Pod' } as const;

interface StatefulSet extends KubeObject {
  spec?: { replicas?: number };
  status?: { replicas?: number; readyReplicas?: number };
}

interface Pod extends KubeObject {
  spec?: { nodeName?: string };
  status?: { podIP?: string; conditions?: { type: string; status: string }[] };
}

interface Secret extends KubeObject {
  data?: Record<string, string>;
}

export interface RedisClusterControllerOptions {
  /** @default 2 */
  readonly maxConcurrentReconciles?: number;
  /** The operator's environment (for RELATED_IMAGE_REDIS). @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  readonly logger?: Logger;
}

/** The operator's per-cluster metrics. */
export interface ClusterMetrics {
  readonly slotsAssigned: Gauge;
  readonly nodesReady: Gauge;
  readonly clusterOk: Gauge;
  readonly migrationsInProgress: Gauge;
  readonly failovers: Counter;
}

export function clusterMetrics(registry: Registry): ClusterMetrics {
  const labelNames = ['namespace', 'name'] as const;
  return {
    slotsAssigned: new Gauge({
      name: 'redis_cluster_slots_assigned',
      help: 'Hash slots assigned to a primary (16384 when complete).',
      labelNames,
      registers: [registry],
    }),
    nodesReady: new Gauge({
      name: 'redis_cluster_nodes_ready',
      help: 'Redis nodes of the cluster that answer the operator.',
      labelNames,
      registers: [registry],
    }),
    clusterOk: new Gauge({
      name: 'redis_cluster_state_ok',
      help: '1 when CLUSTER INFO reports cluster_state:ok.',
      labelNames,
      registers: [registry],
    }),
    migrationsInProgress: new Gauge({
      name: 'redis_cluster_slot_migrations_in_progress',
      help: 'Hash slots still to migrate between primaries (scale-out, scale-in, rebalancing).',
      labelNames,
      registers: [registry],
    }),
    failovers: new Counter({
      name: 'redis_cluster_failovers_total',
      help: 'Replicas seen promoted to primary without the operator asking (Redis Cluster failovers).',
      labelNames,
      registers: [registry],
    }),
  };
}

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
  const secretUsers = new Map<string, Set<string>>();
  const reconcile = redisClusterReconciler(manager.client, events, metrics, {
    env: options.env ?? process.env,
    logger: options.logger,
    secretUsers,
  });
  controllerManagedBy(manager)
    .named('rediscluster')
    .for(REDIS_CLUSTER)
    .owns(STATEFUL_SET)
    .owns(SERVICE)
    .owns(CONFIG_MAP)
    .owns(SECRET)
    .owns(PDB)
    .watches<Pod>(POD, (pod) => {
      const instance = pod.metadata.labels?.['app.kubernetes.io/instance'];
      const managed = pod.metadata.labels?.['app.kubernetes.io/managed-by'] === MANAGED_BY;
      return managed && instance ? [{ namespace: pod.metadata.namespace, name: instance }] : [];
    })
    .watches<Secret>(SECRET, (secret) =>
      [...(secretUsers.get(`${secret.metadata.namespace}/${secret.metadata.name}`) ?? [])].map((name) => ({
        namespace: secret.metadata.namespace,
        name,
      })),
    )
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 2 })
    .complete(reconcile);
}

function condition(
  type: 'Available' | 'Progressing' | 'Degraded',
  status: Condition['status'],
  reason: string,
  message: string,
  generation: number | undefined,
): Omit<Condition, 'lastTransitionTime'> {
  return { type, status, reason, message, observedGeneration: generation };
}

function podReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

function ordinalOf(cr: RedisCluster, pod: Pod): number | undefined {
  const match = pod.metadata.name?.match(/-(\d+)$/);
  return match && pod.metadata.name === `${cr.metadata.name}-${match[1]}` ? Number(match[1]) : undefined;
}

const decode = (value: string | undefined) =>
  value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');

export function redisClusterReconciler(
  client: Client,
  events: EventRecorder,
  metrics: ClusterMetrics,
  options: {
    env: NodeJS.ProcessEnv;
    logger?: Logger;
    secretUsers?: Map<string, Set<string>>;
  },
): Reconciler {
  const roleMemory = new Map<string, Map<string, 'primary' | 'replica'>>();

  async function writeStatus(cr: RedisCluster, next: RedisClusterStatus): Promise<void> {
    const current = cr.status ?? {};
    if (
      isSubset(next, current) &&
      isSubset(current.conditions ?? [], next.conditions ?? []) &&
      (current.members?.length ?? 0) === (next.members?.length ?? 0)
    )
      return;
    for (const c of next.conditions ?? []) {
      const before = findStatusCondition(current.conditions, c.type);
      if (before?.status !== c.status && !(c.type === 'Available' && c.status === 'Unknown')) {
        const warning =
          (c.type === 'Degraded' && c.status === 'True') || (c.type === 'Available' && c.status === 'False');
        events.event(cr, warning ? 'Warning' : 'Normal', c.reason, `${c.type}=${c.status}`, c.message);
      }
    }
    await client.patch(
      { ...REDIS_CLUSTER, name: cr.metadata.name!, namespace: cr.metadata.namespace },
      { status: next },
      'merge',
      { subresource: 'status' },
    );
  }

  function withConditions(
    cr: RedisCluster,
    ...updates: Omit<Condition, 'lastTransitionTime'>[]
  ): Condition[] {
    let conditions = cr.status?.conditions ?? [];
    for (const u of updates) conditions = setStatusCondition(conditions, u).conditions;
    return conditions;
  }

  async function ensure(desired: KubeObject, live: KubeObject | undefined): Promise<boolean> {
    if (live && isSubset(desired, live)) return false;
    await client.apply(desired);
    return true;
  }

  async function getOptional<T extends KubeObject>(
    type: { apiVersion: string; kind: string },
    name: string,
    namespace: string,
  ): Promise<T | undefined> {
    try {
      return await client.get<T>(type, name, namespace);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** The password from the Secret (generated when the spec names none); undefined when it is missing. */
  async function password(cr: RedisCluster): Promise<string | undefined> {
    const namespace = cr.metadata.namespace!;
    const name = passwordSecretName(cr);
    if (options.secretUsers) {
      const key = `${namespace}/${name}`;
      const users = options.secretUsers.get(key) ?? new Set();
      users.add(cr.metadata.name!);
      options.secretUsers.set(key, users);
    }
    const secret = await getOptional<Secret>(SECRET, name, namespace);
    const value = decode(secret?.data?.password);
    if (value) return value;
    if (cr.spec.auth?.secretName) return undefined;
    if (secret) return undefined; // generated Secret without a password: someone changed it
    const generated = generatePassword();
    await client.create(desiredPasswordSecret(cr, generated));
    events.event(
      cr,
      'Normal',
      'PasswordGenerated',
      'CreateSecret',
      `Secret ${name} created with a new password`,
    );
    return generated;
  }

  async function apply(cr: RedisCluster): Promise<Result | undefined> {
    const generation = cr.metadata.generation;
    const namespace = cr.metadata.namespace!;
    const labels = { namespace, name: cr.metadata.name! };
    const fail = async (reason: string, message: string) => {
      await writeStatus(cr, {
        ...cr.status,
        observedGeneration: generation,
        conditions: withConditions(
          cr,
          condition('Available', 'False', reason, message, generation),
          condition('Degraded', 'True', reason, message, generation),
        ),
      });
    };
    let image: string;
    try {
      image = imageFor(cr, options.env);
    } catch (error) {
      if (!(error instanceof ImageNotConfiguredError)) throw error;
      await fail('ImageNotConfigured', error.message);
      return undefined;
    }
    const pw = await password(cr);
    if (pw === undefined) {
      await fail(
        'SecretNotFound',
        `Secret ${passwordSecretName(cr)} with key "password" not found in namespace ${namespace}`,
      );
      return { requeueAfterMs: 30_000 };
    }
    const n = names(cr);
    await ensure(desiredAuthConfSecret(cr, pw), await getOptional(SECRET, n.authConf, namespace));
    await ensure(desiredConfigMap(cr), await getOptional(CONFIG_MAP, n.config, namespace));
    await ensure(desiredHeadlessService(cr), await getOptional(SERVICE, n.headless, namespace));
    await ensure(desiredClientService(cr), await getOptional(SERVICE, n.client, namespace));
    await ensure(desiredPodDisruptionBudget(cr), await getOptional(PDB, n.pdb, namespace));

    const configDigest = digest(redisConf(cr) + digest(authConf(pw)));
    const sts = await getOptional<StatefulSet>(STATEFUL_SET, n.statefulSet, namespace);
    const current = sts?.spec?.replicas ?? 0;
    // Scale-in: the StatefulSet keeps its pods until the cluster has moved their slots off and forgotten them.
    let replicas = Math.max(current, cr.spec.size);
    const created = await ensure(desiredStatefulSet(cr, image, replicas, configDigest), sts);
    if (created && !sts) {
      events.event(
        cr,
        'Normal',
        'Created',
        'CreateStatefulSet',
        `StatefulSet ${n.statefulSet} with ${replicas} pods`,
      );
    }

    const pods = (
      await client.list<Pod>(POD, { namespace, labelSelector: selectorFromLabels(selectorFor(cr)) })
    ).items
      .filter((p) => !p.metadata.deletionTimestamp)
      .map((p): PodInfo | undefined => {
        const ordinal = ordinalOf(cr, p);
        return ordinal === undefined
          ? undefined
          : {
              name: p.metadata.name!,
              ordinal,
              ip: p.status?.podIP,
              ready: podReady(p),
              nodeName: p.spec?.nodeName,
            };
      })
      .filter((p): p is PodInfo => p !== undefined);

    const log = options.logger;
    let sync: SyncResult;
    try {
      sync = await syncCluster({
        pods,
        size: cr.spec.size,
        primaries: primariesOf(cr),
        replicasPerPrimary: replicasPerPrimary(cr),
        password: pw,
        log: (message, fields) => log?.info(message, { ...labels, ...fields }),
      });
    } catch (error) {
      // Never echo what was sent: errors name the command only (see ReplyError).
      const message = (error as Error).message;
      await writeStatus(cr, {
        ...cr.status,
        observedGeneration: generation,
        conditions: withConditions(
          cr,
          condition('Progressing', 'True', 'ClusterOperationFailed', message, generation),
          condition('Degraded', 'True', 'ClusterOperationFailed', message, generation),
        ),
      });
      throw error;
    }
    for (const action of sync.actions) events.event(cr, 'Normal', action.reason, 'Reconcile', action.message);

    // Failovers: a node we last saw as a replica is a primary now, and the operator did not promote it.
    const key = `${namespace}/${cr.metadata.name}`;
    const before = roleMemory.get(key);
    if (before) {
      for (const [id, role] of sync.roles) {
        if (role === 'primary' && before.get(id) === 'replica') {
          metrics.failovers.inc(labels);
          const pod = sync.members.find((m) => m.nodeId === id)?.pod ?? id;
          events.event(
            cr,
            'Warning',
            'FailoverDetected',
            'Observe',
            `replica ${pod} was promoted to primary`,
          );
        }
      }
    }
    roleMemory.set(key, new Map([...(before ?? []), ...sync.roles]));

    if (sync.removablePodsFrom < replicas) {
      replicas = sync.removablePodsFrom;
      await client.patch(
        { ...STATEFUL_SET, name: n.statefulSet, namespace },
        { spec: { replicas } },
        'merge',
      );
      events.event(
        cr,
        'Normal',
        'ScaledIn',
        'ScaleStatefulSet',
        `StatefulSet ${n.statefulSet} scaled to ${replicas} pods`,
      );
    }

    metrics.slotsAssigned.set(labels, sync.slotsAssigned);
    metrics.nodesReady.set(labels, sync.readyNodes);
    metrics.clusterOk.set(labels, sync.clusterState === 'ok' ? 1 : 0);
    metrics.migrationsInProgress.set(labels, sync.migrationsInProgress);

    const degraded = sync.phase === 'Degraded';
    const available = sync.clusterState === 'ok' && sync.slotsAssigned === 16384;
    const conditions = withConditions(
      cr,
      available
        ? condition('Available', 'True', 'ClusterOK', `cluster_state:ok, all 16384 slots served`, generation)
        : condition(
            'Available',
            'False',
            sync.slotsAssigned === 0 ? 'ClusterNotFormed' : 'ClusterFail',
            sync.message,
            generation,
          ),
      sync.ready && replicas === cr.spec.size
        ? condition('Progressing', 'False', 'Ready', sync.message, generation)
        : condition('Progressing', 'True', sync.phase, sync.message, generation),
      degraded
        ? condition('Degraded', 'True', 'NodesFailing', sync.message, generation)
        : condition('Degraded', 'False', 'AsExpected', 'No failures', generation),
    );
    await writeStatus(cr, {
      conditions,
      nodes: sync.members.map((m) => m.pod),
      members: sync.members,
      clusterState: sync.clusterState,
      primaries: sync.primaries,
      readyNodes: sync.readyNodes,
      slotsAssigned: sync.slotsAssigned,
      secretName: passwordSecretName(cr),
      observedGeneration: generation,
    });
    if (sync.ready && replicas === cr.spec.size) return { requeueAfterMs: 10_000 };
    return { requeueAfterMs: sync.phase === 'MigratingSlots' ? 100 : 1000 };
  }

  return async (req) => {
    let cr: RedisCluster;
    try {
      cr = await client.get<RedisCluster>(REDIS_CLUSTER, req.name, req.namespace);
    } catch (error) {
      if (isNotFound(error)) {
        roleMemory.delete(`${req.namespace}/${req.name}`);
        for (const gauge of [
          metrics.slotsAssigned,
          metrics.nodesReady,
          metrics.clusterOk,
          metrics.migrationsInProgress,
        ])
          gauge.remove({ namespace: req.namespace ?? '', name: req.name });
        return undefined; // deleted; owned objects go by garbage collection
      }
      throw error;
    }
    if (cr.metadata.deletionTimestamp) return undefined;
    if (!cr.status?.conditions?.length) {
      await writeStatus(cr, {
        conditions: withConditions(
          cr,
          condition('Available', 'Unknown', 'Reconciling', 'Starting reconciliation', cr.metadata.generation),
          condition('Progressing', 'True', 'Reconciling', 'Starting reconciliation', cr.metadata.generation),
        ),
      });
      return undefined; // the status write brings the object back with its conditions
    }
    return apply(cr);
  };
}
