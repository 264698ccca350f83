import {
  applyIfChanged,
  type ConditionUpdate,
  clientFinalizerOps,
  controllerManagedBy,
  type EventRecorder,
  findStatusCondition,
  ignoreNotFound,
  isPodReady,
  type KubeObject,
  type Manager,
  type ObjectClient,
  type ObjectList,
  type PolicyRule,
  patchStatusIfChanged,
  type Reconciler,
  runWithFinalizer,
  selectorFromLabels,
  setStatusConditions,
  storageVersionMigrationRbac,
} from '@opkit/controller-runtime';
import { Counter } from 'prom-client';
import { MEMCACHED, type Memcached, type MemcachedStatus } from '../api/v1beta1/memcached.js';
import {
  desiredDeployment,
  desiredPodDisruptionBudget,
  desiredService,
  ImageNotConfiguredError,
  imageFor,
  labelsFor,
  portOf,
  selectorFor,
} from './resources.js';

export const FINALIZER = 'cache.example.com/finalizer';
const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;
const SERVICE = { apiVersion: 'v1', kind: 'Service' } as const;
const PDB = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' } as const;
const POD = { apiVersion: 'v1', kind: 'Pod' } as const;

interface Deployment extends KubeObject {
  spec?: { replicas?: number; template?: { spec?: { containers?: { image?: string }[] } } };
  status?: {
    replicas?: number;
    readyReplicas?: number;
    updatedReplicas?: number;
    observedGeneration?: number;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

interface Pod extends KubeObject {
  status?: {
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { state?: { waiting?: { reason?: string; message?: string } } }[];
  };
}

/**
 * Everything the Memcached controller does with the API, declared next to it (as kubebuilder markers are);
 * `nx run memcached:manifests` turns it into config/rbac/role.yaml. Keep it in step with the code below.
 */
export const memcachedControllerRbac: readonly PolicyRule[] = [
  {
    apiGroups: ['cache.example.com'],
    resources: ['memcacheds'],
    verbs: ['get', 'list', 'watch', 'update', 'patch'],
  },
  { apiGroups: ['cache.example.com'], resources: ['memcacheds/status'], verbs: ['get', 'update', 'patch'] },
  { apiGroups: ['cache.example.com'], resources: ['memcacheds/finalizers'], verbs: ['update'] },
  {
    apiGroups: ['apps'],
    resources: ['deployments'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  },
  {
    apiGroups: [''],
    resources: ['services'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  },
  {
    apiGroups: ['policy'],
    resources: ['poddisruptionbudgets'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  },
  { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
  // Rewriting objects stored in an older version of the CRD, then trimming its status.storedVersions.
  ...storageVersionMigrationRbac('memcacheds.cache.example.com'),
];

export interface MemcachedControllerOptions {
  /** @default 1 */
  readonly maxConcurrentReconciles?: number;
  /** The operator's environment (for RELATED_IMAGE_MEMCACHED). @default process.env */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Keeps, for every Memcached, a Deployment of memcached servers, a headless Service and (replicas > 1) a
 * PodDisruptionBudget, all owned by it; repairs drift of every field it sets; reports Available, Progressing
 * and Degraded with observedGeneration, the pods in `status.nodes` and their addresses in `status.servers`.
 * Writes happen only when something differs, so a converged Memcached costs no API writes.
 */
export function setupMemcachedController(manager: Manager, options: MemcachedControllerOptions = {}): void {
  const undesiredSize = new Counter({
    name: 'memcached_deployment_size_undesired_count_total',
    help: 'Total number of times the deployment size was not as desired.',
    registers: [manager.metrics.registry],
  });
  const events = manager.eventRecorder('memcached-controller');
  const reconcile = memcachedReconciler(manager.client, events, undesiredSize, options.env ?? process.env);
  controllerManagedBy(manager)
    .named('memcached')
    .for(MEMCACHED)
    .owns(DEPLOYMENT)
    .owns(SERVICE)
    .owns(PDB)
    .watches<Pod>(POD, (pod) => {
      const instance = pod.metadata.labels?.['app.kubernetes.io/instance'];
      const managed = pod.metadata.labels?.['app.kubernetes.io/managed-by'] === 'memcached-operator';
      return managed && instance ? [{ namespace: pod.metadata.namespace, name: instance }] : [];
    })
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 1 })
    .complete(reconcile);
}

/**
 * Whether a condition change is news for `kubectl describe`: availability gained or lost, degradation raised
 * or cleared. Progressing comes and goes with every rollout, and a condition's first value is only news when
 * it is good (Available) or bad (Degraded); each event is an API write, so the rest stay in the status.
 */
function eventTypeFor(
  before: string | undefined,
  c: { readonly type: string; readonly status: string },
): 'Normal' | 'Warning' | undefined {
  if (before === c.status || c.type === 'Progressing' || c.status === 'Unknown') return undefined;
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

export function memcachedReconciler(
  client: ObjectClient,
  events: EventRecorder,
  undesiredSize: Counter,
  env: NodeJS.ProcessEnv,
): Reconciler {
  /** Writes the status when it differs from what the object has; emits an event for each change worth one. */
  async function writeStatus(cr: Memcached, next: MemcachedStatus): Promise<void> {
    const before = cr.status?.conditions;
    if (!(await patchStatusIfChanged(client, MEMCACHED, cr, next))) return;
    for (const c of next.conditions ?? []) {
      const type = eventTypeFor(findStatusCondition(before, c.type)?.status, c);
      if (type) events.event(cr, type, c.reason, `${c.type}=${c.status}`, c.message);
    }
  }

  /** An object of the Memcached's own name and namespace, or undefined. */
  const getOwned = <T extends KubeObject>(type: { apiVersion: string; kind: string }, cr: Memcached) =>
    ignoreNotFound(client.get<T>(type, cr.metadata.name!, cr.metadata.namespace));

  async function apply(cr: Memcached): Promise<void> {
    const generation = cr.metadata.generation;
    let image: string;
    try {
      image = imageFor(cr, env);
    } catch (error) {
      if (!(error instanceof ImageNotConfiguredError)) throw error;
      await writeStatus(cr, {
        ...cr.status,
        observedGeneration: generation,
        conditions: setStatusConditions(
          cr.status?.conditions,
          {
            type: 'Available',
            status: 'False',
            reason: 'ImageNotConfigured',
            message: error.message,
            observedGeneration: generation,
          },
          {
            type: 'Degraded',
            status: 'True',
            reason: 'ImageNotConfigured',
            message: error.message,
            observedGeneration: generation,
          },
        ),
      });
      return; // nothing to retry until the spec or the operator's configuration changes
    }

    const deployment = await getOwned<Deployment>(DEPLOYMENT, cr);
    const desired = desiredDeployment(cr, image);
    if (deployment?.spec?.replicas !== undefined && deployment.spec.replicas !== cr.spec.replicas) {
      undesiredSize.inc();
    }
    const outcome = await applyIfChanged(client, desired, deployment);
    if (outcome === 'created') {
      events.event(
        cr,
        'Normal',
        'Created',
        'CreateDeployment',
        `Deployment ${desired.metadata.name} with ${cr.spec.replicas} replicas created`,
      );
    } else if (outcome === 'updated') {
      events.event(
        cr,
        'Normal',
        'Updated',
        'UpdateDeployment',
        `Deployment ${desired.metadata.name} brought back to the spec`,
      );
    }
    await applyIfChanged(client, desiredService(cr), await getOwned(SERVICE, cr));
    const pdb = await getOwned(PDB, cr);
    if (cr.spec.replicas > 1) await applyIfChanged(client, desiredPodDisruptionBudget(cr), pdb);
    else if (pdb) await client.delete({ ...PDB, name: cr.metadata.name!, namespace: cr.metadata.namespace });

    const pods: ObjectList<Pod> = await client.list<Pod>(POD, {
      namespace: cr.metadata.namespace,
      labelSelector: selectorFromLabels(selectorFor(cr)),
    });
    const live = pods.items
      .filter((p) => !p.metadata.deletionTimestamp)
      .sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
    const ready = live.filter(isPodReady);
    const port = portOf(cr);
    const status = deployment?.status ?? {};
    const rolledOut =
      outcome === 'unchanged' &&
      status.observedGeneration === deployment?.metadata.generation &&
      (status.updatedReplicas ?? 0) === cr.spec.replicas &&
      (status.replicas ?? 0) === cr.spec.replicas;
    const allReady =
      rolledOut && ready.length === cr.spec.replicas && (status.readyReplicas ?? 0) === cr.spec.replicas;
    const stuck = status.conditions?.find((c) => c.type === 'Progressing' && c.status === 'False');
    const waiting = live
      .flatMap((p) =>
        (p.status?.containerStatuses ?? []).map(
          (s) => s.state?.waiting && `${p.metadata.name}: ${s.state.waiting.reason}`,
        ),
      )
      .filter(Boolean);
    const notReadyMessage = `${ready.length} of ${cr.spec.replicas} servers ready${waiting.length ? ` (${waiting.join(', ')})` : ''}`;

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
          reason: ready.length > 0 ? 'ServersNotReady' : 'NoServersReady',
          message: notReadyMessage,
        };
    const progressing: ConditionUpdate = allReady
      ? {
          type: 'Progressing',
          status: 'False',
          reason: 'RolloutComplete',
          message: `Deployment ${cr.metadata.name} is rolled out`,
        }
      : stuck
        ? {
            type: 'Progressing',
            status: 'False',
            reason: stuck.reason ?? 'RolloutStuck',
            message: stuck.message ?? notReadyMessage,
          }
        : { type: 'Progressing', status: 'True', reason: 'RollingOut', message: notReadyMessage };
    const degraded: ConditionUpdate = stuck
      ? {
          type: 'Degraded',
          status: 'True',
          reason: stuck.reason ?? 'RolloutStuck',
          message: stuck.message ?? notReadyMessage,
        }
      : { type: 'Degraded', status: 'False', reason: 'AsExpected', message: 'No failures' };
    const conditions = setStatusConditions(
      cr.status?.conditions,
      ...[available, progressing, degraded].map((c) => ({ ...c, observedGeneration: generation })),
    );
    await writeStatus(cr, {
      conditions,
      nodes: live.map((p) => p.metadata.name!),
      servers: ready.filter((p) => p.status?.podIP).map((p) => `${p.status!.podIP}:${port}`),
      readyReplicas: ready.length,
      observedGeneration: generation,
    });
  }

  return async (req) => {
    const cr = await ignoreNotFound(client.get<Memcached>(MEMCACHED, req.name, req.namespace));
    if (!cr) return; // deleted; owned objects go by garbage collection
    await runWithFinalizer(cr, FINALIZER, clientFinalizerOps<Memcached>(client), {
      apply,
      cleanup: async (dying) => {
        events.event(
          dying,
          'Warning',
          'Deleting',
          'Finalize',
          `Custom Resource ${dying.metadata.name} is being deleted from the namespace ${dying.metadata.namespace}`,
        );
        await writeStatus(dying, {
          ...dying.status,
          conditions: setStatusConditions(dying.status?.conditions, {
            type: 'Degraded',
            status: 'True',
            reason: 'Finalizing',
            message: `Finalizer operations for custom resource ${dying.metadata.name} were successfully accomplished`,
            observedGeneration: dying.metadata.generation,
          }),
        });
      },
    });
  };
}

export { labelsFor };
