import {
  applyIfChanged,
  clientFinalizerOps,
  controllerManagedBy,
  type EventRecorder,
  ignoreNotFound,
  type Manager,
  type ObjectClient,
  type Reconciler,
  type Result,
  runWithFinalizer,
  type Stored,
} from '@opkit/controller-runtime';
import { selectorFromLabels } from '@opkit/controller-runtime/cache';
import { enqueueForInstanceLabel } from '@opkit/controller-runtime/controller';
import { patchStatusWithConditionEvents } from '@opkit/controller-runtime/controllerutil';
import {
  DEPLOYMENT,
  type Deployment,
  POD,
  POD_DISRUPTION_BUDGET,
  type Pod,
  type PodDisruptionBudget,
  SERVICE,
  type Service,
} from '@opkit/controller-runtime/kinds';
import { storageVersionMigrationRbac } from '@opkit/controller-runtime/manager';
import type { ResourcePolicyRule } from '@opkit/controller-runtime/rbac';
import { Counter } from 'prom-client';
import { MEMCACHED, type Memcached } from '../api/v1beta1/memcached.js';
import {
  conditionEventType,
  deploymentEvent,
  imageNotConfiguredStatus,
  observedStatus,
} from './memcached-status.js';
import {
  desiredDeployment,
  desiredPodDisruptionBudget,
  desiredService,
  ImageNotConfiguredError,
  imageFor,
  labelsFor,
  MANAGED_BY,
  portOf,
  selectorFor,
} from './resources.js';

export const FINALIZER = 'cache.example.com/finalizer';

/** How long a reconcile that changed the Deployment waits for its controller's answer before it looks again. */
const REPORT_AFTER_CHANGE_MS = 30_000;

/**
 * Everything the Memcached controller does with the API, declared next to it (as kubebuilder markers are);
 * `nx run memcached:manifests` turns it into config/rbac/role.yaml. Keep it in step with the code below.
 */
export const memcachedControllerRbac: readonly ResourcePolicyRule[] = [
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
 * Keeps, for every Memcached, a Deployment of memcached servers, a headless Service (from its first ready
 * server on) and (replicas > 1) a PodDisruptionBudget, all owned by it; repairs drift of every field it sets; reports Available, Progressing
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
    .owns(POD_DISRUPTION_BUDGET)
    .watches(POD, enqueueForInstanceLabel(MANAGED_BY))
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 1 })
    .complete(reconcile);
}

export function memcachedReconciler(
  client: ObjectClient,
  events: EventRecorder,
  undesiredSize: Counter,
  env: NodeJS.ProcessEnv,
): Reconciler {
  /**
   * Applies the Deployment, the Service and the PDB side by side: none depends on another, so a reconcile waits
   * for one round trip, not three. Says what the Deployment was and what applying did.
   *
   * The Service comes once a server is ready, and stays: before that it has no address to publish (DNS answers
   * with none either way), and the endpoint controllers would write its empty and then its first endpoints,
   * two writes each for every new Memcached.
   */
  async function applyOwnedObjects(cr: Stored<Memcached>, image: string) {
    const { name, namespace } = cr.metadata;
    const [deployment, service, pdb] = await Promise.all([
      ignoreNotFound(client.get<Deployment>(DEPLOYMENT, name, namespace)),
      ignoreNotFound(client.get<Service>(SERVICE, name, namespace)),
      ignoreNotFound(client.get<PodDisruptionBudget>(POD_DISRUPTION_BUDGET, name, namespace)),
    ]);
    if (deployment?.spec?.replicas !== undefined && deployment.spec.replicas !== cr.spec.replicas) {
      undesiredSize.inc();
    }
    const serving = service !== undefined || (deployment?.status?.readyReplicas ?? 0) > 0;
    const [outcome] = await Promise.all([
      applyIfChanged(client, desiredDeployment(cr, image), deployment),
      serving && applyIfChanged(client, desiredService(cr), service),
      cr.spec.replicas > 1
        ? applyIfChanged(client, desiredPodDisruptionBudget(cr), pdb)
        : // One the cache still shows may be gone already: that is the state asked for, not an error.
          pdb && ignoreNotFound(client.delete({ ...POD_DISRUPTION_BUDGET, name, namespace })),
    ]);
    const event = deploymentEvent(cr, outcome);
    if (event) events.event(cr, 'Normal', event.reason, event.action, event.note);
    return { deployment, outcome };
  }

  async function apply(cr: Stored<Memcached>): Promise<Result | undefined> {
    let image: string;
    try {
      image = imageFor(cr, env);
    } catch (error) {
      if (!(error instanceof ImageNotConfiguredError)) throw error;
      const status = imageNotConfiguredStatus(cr, error.message);
      await patchStatusWithConditionEvents(client, events, MEMCACHED, cr, status, conditionEventType);
      return undefined; // nothing to retry until the spec or the operator's configuration changes
    }
    const { deployment, outcome } = await applyOwnedObjects(cr, image);
    if (outcome !== 'unchanged' || !deployment) {
      // The Deployment's status describes its old spec (or it has none yet): the status write its controller
      // makes next starts another reconcile, which reports what the rollout did. A report now would be a guess
      // that costs a write per Memcached; the requeue covers a Deployment controller that never answers.
      return { requeueAfterMs: REPORT_AFTER_CHANGE_MS };
    }
    const pods = await client.list<Pod>(POD, {
      namespace: cr.metadata.namespace,
      labelSelector: selectorFromLabels(selectorFor(cr)),
    });
    const status = observedStatus(cr, { deployment, pods: pods.items, port: portOf(cr) });
    await patchStatusWithConditionEvents(client, events, MEMCACHED, cr, status, conditionEventType);
    return undefined;
  }

  return async (req) => {
    const cr = await ignoreNotFound(client.get<Memcached>(MEMCACHED, req.name, req.namespace));
    if (!cr) return; // deleted; owned objects go by garbage collection
    return runWithFinalizer(cr, FINALIZER, clientFinalizerOps<Memcached>(client), {
      apply,
      // Owned objects go by garbage collection; the event outlives the Memcached. No status: the object is
      // gone a moment after the finalizer, so a report of its finalization would be a write nobody reads.
      cleanup: async (dying) => {
        events.event(
          dying,
          'Warning',
          'Deleting',
          'Finalize',
          `Custom Resource ${dying.metadata.name} is being deleted from the namespace ${dying.metadata.namespace}`,
        );
        return undefined;
      },
    });
  };
}

export { labelsFor };
