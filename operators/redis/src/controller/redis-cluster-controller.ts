import {
  applyIfChanged,
  type Client,
  type Condition,
  controllerManagedBy,
  type EventRecorder,
  findStatusCondition,
  ignoreNotFound,
  isConflict,
  isNotFound,
  isPodReady,
  isSubset,
  type KubeObject,
  type Logger,
  type Manager,
  type PolicyRule,
  type Reconciler,
  type Result,
  selectorFromLabels,
  setStatusConditions,
} from '@opkit/controller-runtime';
import { Counter, Gauge, type Registry } from 'prom-client';
import { REDIS_CLUSTER, type RedisCluster, type RedisClusterStatus } from '../api/v1/redis-cluster.js';
import { primariesOf, replicasPerPrimary } from '../api/v1/redis-cluster-shape.js';
import {
  AUTH_CONF_KEY,
  authConf,
  ConfigInvalidError,
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
  PASSWORD_KEY,
  PREVIOUS_PASSWORD_KEY,
  passwordOfAuthConf,
  passwordSecretName,
  redisConf,
  selectorFor,
} from './resources.js';
import { ACCEPT_SLOT_LOSS_ANNOTATION, type PodInfo, type SyncResult, syncCluster } from './topology.js';

const STATEFUL_SET = { apiVersion: 'apps/v1', kind: 'StatefulSet' } as const;
const SERVICE = { apiVersion: 'v1', kind: 'Service' } as const;
const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const PDB = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' } as const;
const POD = { apiVersion: 'v1', kind: 'Pod' } as const;

interface StatefulSet extends KubeObject {
  spec?: { replicas?: number };
  status?: {
    replicas?: number;
    readyReplicas?: number;
    observedGeneration?: number;
    /** The revision of the current pod template; pods carry theirs in the controller-revision-hash label. */
    updateRevision?: string;
  };
}

/** Actions repeated on every pass of a long step: an event only when the step starts, else a log line. */
const PER_PASS_ACTIONS = new Set(['NodesMet', 'SlotsMigrated', 'FailoverRequested']);

/** Pods carry the revision of the StatefulSet template they were created from. */
const REVISION_LABEL = 'controller-revision-hash';

interface Pod extends KubeObject {
  spec?: { nodeName?: string };
  status?: { podIP?: string; conditions?: { type: string; status: string }[] };
}

interface Secret extends KubeObject {
  data?: Record<string, string>;
}

/** The password from the Secret, or why there is none (a condition reason and a message). */
type PasswordSource = { password: string } | { reason: string; message: string };

/**
 * Everything the RedisCluster controller does with the API, declared next to it (as kubebuilder markers are);
 * `nx run redis:manifests` turns it into config/rbac/role.yaml. Keep it in step with the controller.
 */
export const redisClusterControllerRbac: readonly PolicyRule[] = [
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

/** The operator's per-cluster metrics. */
export interface ClusterMetrics {
  readonly slotsAssigned: Gauge;
  readonly nodesReady: Gauge;
  readonly clusterOk: Gauge;
  readonly migrationsInProgress: Gauge;
  readonly failovers: Counter;
  readonly podRestarts: Counter;
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
    podRestarts: new Counter({
      name: 'redis_cluster_pod_restarts_total',
      help: 'Pods the operator restarted to apply a new pod template (rolling restart).',
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
    logger: options.logger ?? manager.logger,
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
  /** Replicas the operator asked to take over (rolling restart): their promotion is no failover. */
  const requestedFailovers = new Map<string, Set<string>>();

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

  /** The auth Secret with exactly these keys (a key the operator drops must go, which `ensure` would not see). */
  async function ensureAuthConf(
    cr: RedisCluster,
    pw: string,
    previous: string | undefined,
    live: Secret | undefined,
  ): Promise<boolean> {
    const desired = desiredAuthConfSecret(cr, pw, previous);
    const liveKeys = Object.keys(live?.data ?? {}).sort();
    if (live && liveKeys.join() === Object.keys(desired.data).sort().join() && isSubset(desired, live))
      return false;
    await client.apply(desired);
    return true;
  }

  /**
   * The password from the cluster's Secret (key `password`). A missing generated Secret is created: with the
   * password the nodes run with, if there is one, so clients keep working; else with a new one. A missing
   * user Secret, or one without a usable `password`, is a problem naming the Secret and the key.
   */
  async function password(cr: RedisCluster, running: string | undefined): Promise<PasswordSource> {
    const namespace = cr.metadata.namespace!;
    const name = passwordSecretName(cr);
    if (options.secretUsers) {
      const key = `${namespace}/${name}`;
      const users = options.secretUsers.get(key) ?? new Set();
      users.add(cr.metadata.name!);
      options.secretUsers.set(key, users);
    }
    const secret = await ignoreNotFound(client.get<Secret>(SECRET, name, namespace));
    if (!secret) {
      if (cr.spec.auth?.secretName) {
        return {
          reason: 'AuthSecretNotFound',
          message: `Secret ${name} (spec.auth.secretName) not found in namespace ${namespace}; it needs the key "password"`,
        };
      }
      const value = running ?? generatePassword();
      await client.create(desiredPasswordSecret(cr, value));
      events.event(
        cr,
        'Normal',
        'PasswordGenerated',
        'CreateSecret',
        running
          ? `Secret ${name} re-created with the password the cluster runs with`
          : `Secret ${name} created with a new password`,
      );
      return { password: value };
    }
    const encoded = secret.data?.[PASSWORD_KEY];
    if (encoded === undefined) {
      const keys = Object.keys(secret.data ?? {});
      return {
        reason: 'AuthSecretInvalid',
        message: `Secret ${name} in namespace ${namespace} has no key "${PASSWORD_KEY}" (keys: ${keys.join(', ') || 'none'})`,
      };
    }
    const raw = Buffer.from(encoded, 'base64');
    const value = raw.toString('utf8');
    const flaw =
      value === ''
        ? 'is empty'
        : !Buffer.from(value, 'utf8').equals(raw)
          ? 'is not valid UTF-8'
          : value.includes('\0')
            ? 'contains a NUL byte'
            : undefined;
    if (flaw) {
      return {
        reason: 'AuthSecretInvalid',
        message: `key "${PASSWORD_KEY}" of Secret ${name} in namespace ${namespace} ${flaw}`,
      };
    }
    return { password: value };
  }

  async function apply(cr: RedisCluster): Promise<Result | undefined> {
    const generation = cr.metadata.generation;
    const namespace = cr.metadata.namespace!;
    const labels = { namespace, name: cr.metadata.name! };
    const fail = async (reason: string, message: string) => {
      await writeStatus(cr, {
        ...cr.status,
        observedGeneration: generation,
        conditions: setStatusConditions(
          cr.status?.conditions,
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
    try {
      redisConf(cr);
    } catch (error) {
      if (!(error instanceof ConfigInvalidError)) throw error;
      await fail('ConfigInvalid', error.message);
      return undefined;
    }
    const n = names(cr);
    // The password the nodes were started with, and the one before it while a rotation is rolling out.
    const authConfSecret = await ignoreNotFound(client.get<Secret>(SECRET, n.authConf, namespace));
    const running = passwordOfAuthConf(decode(authConfSecret?.data?.[AUTH_CONF_KEY]));
    const carried = decode(authConfSecret?.data?.[PREVIOUS_PASSWORD_KEY]);
    const source = await password(cr, running);
    let pw: string;
    let secretProblem: { reason: string; message: string } | undefined;
    if ('password' in source) {
      pw = source.password;
    } else if (running !== undefined) {
      // A broken Secret must not take a working cluster down: keep the password it runs with.
      pw = running;
      secretProblem = source;
    } else {
      await fail(source.reason, source.message);
      return { requeueAfterMs: 30_000 };
    }
    const previousCandidate = running !== undefined && running !== pw ? running : carried;
    let previous = previousCandidate !== pw ? previousCandidate : undefined;
    const authConfChanged = await ensureAuthConf(cr, pw, previous, authConfSecret);
    if (authConfChanged && running !== undefined && running !== pw) {
      events.event(
        cr,
        'Normal',
        'PasswordRotation',
        'UpdateSecret',
        `new password in Secret ${passwordSecretName(cr)}: switching the nodes over and restarting them`,
      );
    }
    // The objects that follow from the spec alone: applied when the cache shows them differing.
    for (const [type, desired] of [
      [CONFIG_MAP, desiredConfigMap(cr)],
      [SERVICE, desiredHeadlessService(cr)],
      [SERVICE, desiredClientService(cr)],
      [PDB, desiredPodDisruptionBudget(cr)],
    ] as const) {
      const live = await ignoreNotFound(client.get(type, desired.metadata.name ?? '', namespace));
      await applyIfChanged(client, desired, live);
    }

    const configDigest = digest(redisConf(cr) + digest(authConf(pw)));
    const sts = await ignoreNotFound(client.get<StatefulSet>(STATEFUL_SET, n.statefulSet, namespace));
    const current = sts?.spec?.replicas ?? 0;
    // Scale-in: the StatefulSet keeps its pods until the cluster has moved their slots off and forgotten them.
    let replicas = Math.max(current, cr.spec.size);
    const stsChanged =
      (await applyIfChanged(client, desiredStatefulSet(cr, image, replicas, configDigest), sts)) !==
      'unchanged';
    if (stsChanged && !sts) {
      events.event(
        cr,
        'Normal',
        'Created',
        'CreateStatefulSet',
        `StatefulSet ${n.statefulSet} with ${replicas} pods`,
      );
    } else if (sts && replicas > current) {
      events.event(
        cr,
        'Normal',
        'ScaledOut',
        'ScaleStatefulSet',
        `StatefulSet ${n.statefulSet} scaled from ${current} to ${replicas} pods; slots follow once they join`,
      );
    }
    // Pods from an older template restart one at a time (OnDelete), once the StatefulSet has recorded the
    // revision of its current template.
    const updateRevision =
      sts && !stsChanged && sts.status?.observedGeneration === sts.metadata.generation
        ? sts.status?.updateRevision
        : undefined;

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
              uid: p.metadata.uid,
              ordinal,
              ip: p.status?.podIP,
              ready: isPodReady(p),
              nodeName: p.spec?.nodeName,
              outdated:
                updateRevision !== undefined && p.metadata.labels?.[REVISION_LABEL] !== updateRevision,
            };
      })
      .filter((p): p is PodInfo => p !== undefined);

    const log = options.logger;
    const started = Date.now();
    let sync: SyncResult;
    try {
      sync = await syncCluster({
        pods,
        size: cr.spec.size,
        primaries: primariesOf(cr),
        replicasPerPrimary: replicasPerPrimary(cr),
        password: pw,
        previousPassword: previous,
        persistent: cr.spec.storage !== undefined,
        revisionKnown: updateRevision !== undefined,
        acceptSlotLossOf: cr.metadata.annotations?.[ACCEPT_SLOT_LOSS_ANNOTATION],
        log: (message, fields) => log?.info(message, { ...labels, ...fields }),
      });
    } catch (error) {
      // Never echo what was sent: errors name the command only (see ReplyError).
      const message = (error as Error).message;
      await writeStatus(cr, {
        ...cr.status,
        observedGeneration: generation,
        conditions: setStatusConditions(
          cr.status?.conditions,
          condition('Progressing', 'True', 'ClusterOperationFailed', message, generation),
          condition('Degraded', 'True', 'ClusterOperationFailed', message, generation),
        ),
      });
      throw error;
    }
    log?.debug('cluster pass', {
      ...labels,
      phase: sync.phase,
      message: sync.message,
      ms: Date.now() - started,
    });
    // Events tell the milestones; what every pass of a long step does goes to the log (the event recorder lets
    // 25 events per object through, then one per 5 minutes).
    const progressing = findStatusCondition(cr.status?.conditions, 'Progressing');
    const stepStarts = (phase: string) => sync.phase === phase && progressing?.reason !== phase;
    for (const action of sync.actions) {
      const event =
        !PER_PASS_ACTIONS.has(action.reason) ||
        (action.reason === 'SlotsMigrated' && stepStarts('MigratingSlots'));
      if (event) events.event(cr, 'Normal', action.reason, 'Reconcile', action.message);
      else log?.info(action.message, { ...labels, reason: action.reason });
    }

    // Failovers: a node we last saw as a replica is a primary now, and the operator did not promote it.
    const key = `${namespace}/${cr.metadata.name}`;
    const before = roleMemory.get(key);
    const requested = requestedFailovers.get(key) ?? new Set<string>();
    for (const id of sync.promoted) requested.add(id);
    requestedFailovers.set(key, requested);
    if (before) {
      for (const [id, role] of sync.roles) {
        if (role !== 'primary' || before.get(id) !== 'replica') continue;
        if (requested.delete(id)) continue;
        metrics.failovers.inc(labels);
        const pod = sync.members.find((m) => m.nodeId === id)?.pod ?? id;
        events.event(cr, 'Warning', 'FailoverDetected', 'Observe', `replica ${pod} was promoted to primary`);
      }
    }
    roleMemory.set(key, new Map([...(before ?? []), ...sync.roles]));

    if (sync.restartPod) {
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

    if (sync.passwordSettled && previous !== undefined && !sync.restartPod && sync.ready) {
      // Every pod runs with the current password now: forget the previous one.
      await ensureAuthConf(
        cr,
        pw,
        undefined,
        await ignoreNotFound(client.get<Secret>(SECRET, n.authConf, namespace)),
      );
      previous = undefined;
    }

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

    const available = sync.clusterState === 'ok' && sync.slotsAssigned === 16384;
    const settled = sync.ready && replicas === cr.spec.size;
    const conditions = setStatusConditions(
      cr.status?.conditions,
      available
        ? condition('Available', 'True', 'ClusterOK', `cluster_state:ok, all 16384 slots served`, generation)
        : condition(
            'Available',
            'False',
            sync.slotsAssigned === 0 ? 'ClusterNotFormed' : 'ClusterFail',
            sync.message,
            generation,
          ),
      settled
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
    if (settled) return { requeueAfterMs: secretProblem ? 30_000 : 10_000 };
    // Waiting for the user: no point in asking Redis every second.
    if (sync.phase === 'RestartBlocked' || sync.phase === 'SlotsLost') return { requeueAfterMs: 30_000 };
    return { requeueAfterMs: sync.phase === 'MigratingSlots' ? 100 : 1000 };
  }

  return async (req) => {
    let cr: RedisCluster;
    try {
      cr = await client.get<RedisCluster>(REDIS_CLUSTER, req.name, req.namespace);
    } catch (error) {
      if (isNotFound(error)) {
        roleMemory.delete(`${req.namespace}/${req.name}`);
        requestedFailovers.delete(`${req.namespace}/${req.name}`);
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
        conditions: setStatusConditions(
          cr.status?.conditions,
          condition('Available', 'Unknown', 'Reconciling', 'Starting reconciliation', cr.metadata.generation),
          condition('Progressing', 'True', 'Reconciling', 'Starting reconciliation', cr.metadata.generation),
        ),
      });
      return undefined; // the status write brings the object back with its conditions
    }
    return apply(cr);
  };
}
