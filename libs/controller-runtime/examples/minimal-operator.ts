// A minimal operator on @opkit/controller-runtime. For every Greeting (example.opkit.dev/v1, a namespaced
// custom resource with a status subresource) it keeps a ConfigMap `<name>-greeting` holding `spec.message`,
// owned by the Greeting, and reports a `Ready` condition in the Greeting's status.
//
// Run it against the cluster of $KUBECONFIG (or ~/.kube/config, or in-cluster) after installing the CRD shown
// in the README:  npx tsx libs/controller-runtime/examples/minimal-operator.ts
// An operator outside this repository imports from '@opkit/controller-runtime' instead of '../src/index.js'
// (and from '@opkit/controller-runtime/<subpath>' instead of '../src/<subpath>/index.js').

// Helpers beyond the root's: all of controllerutil, and the manager's error for a lost lease.
import { isControlledBy, setStatusCondition } from '../src/controllerutil/index.js';
import {
  type Condition,
  clientFinalizerOps,
  controllerManagedBy,
  type EventRecorder,
  isNotFound,
  type KubeObject,
  kind,
  Manager,
  type ObjectClient,
  type Reconciler,
  runWithFinalizer,
  type Stored,
  setControllerReference,
  setupSignalHandler,
} from '../src/index.js';
import { LeaderElectionLostError } from '../src/manager/index.js';

interface Greeting extends KubeObject {
  spec: { message: string };
  status?: { conditions?: Condition[] };
}

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

const GREETING = kind<Greeting>('example.opkit.dev/v1', 'Greeting');
const CONFIG_MAP = kind<ConfigMap>('v1', 'ConfigMap');
const FINALIZER = 'example.opkit.dev/cleanup';

/** The reconciler. In a real operator it lives in a module of its own, so unit tests can import it. */
function greetingReconciler(client: ObjectClient, events: Pick<EventRecorder, 'event'>): Reconciler {
  const finalizers = clientFinalizerOps<Greeting>(client);
  return async (request) => {
    let greeting: Stored<Greeting>;
    try {
      // From the cache: no API call, and a deep-frozen object (copy it with structuredClone to change it).
      greeting = await client.get<Greeting>(GREETING, request.name, request.namespace);
    } catch (error) {
      if (isNotFound(error)) return; // gone; the ConfigMap follows through its owner reference
      throw error; // retried with back-off
    }
    await runWithFinalizer(greeting, FINALIZER, finalizers, {
      apply: (live) => ensureConfigMap(client, events, live),
      cleanup: async (dying) => {
        // Release what lives outside the cluster here. The finalizer is removed once this resolves.
        events.event(dying, 'Normal', 'CleanedUp', 'Finalize', 'nothing outside the cluster to release');
      },
    });
  };
}

async function ensureConfigMap(
  client: ObjectClient,
  events: Pick<EventRecorder, 'event'>,
  greeting: Stored<Greeting>,
): Promise<void> {
  const { name: owner, namespace } = greeting.metadata;
  const name = `${owner}-greeting`;
  let current: ConfigMap | undefined;
  try {
    current = await client.get<ConfigMap>(CONFIG_MAP, name, namespace);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  // Write only what differs. The cache sees this manager's own writes at once, so the reconcile that our
  // write triggers finds nothing to do and an unchanged world costs no write.
  if (!current || current.data?.message !== greeting.spec.message || !isControlledBy(current, greeting)) {
    const desired: ConfigMap = {
      ...CONFIG_MAP,
      metadata: { name, namespace },
      data: { message: greeting.spec.message },
    };
    setControllerReference(greeting, desired); // AlreadyOwnedError if another controller owns it
    await client.apply(desired); // server-side apply as 'greeting-operator', forced
  }

  const { conditions, changed } = setStatusCondition(greeting.status?.conditions, {
    type: 'Ready',
    status: 'True',
    reason: 'ConfigMapReady',
    message: `ConfigMap ${name} holds the message`,
    observedGeneration: greeting.metadata.generation,
  });
  if (!changed) return;
  await client.patch({ ...GREETING, name: owner, namespace }, { status: { conditions } }, 'merge', {
    subresource: 'status',
  });
  events.event(greeting, 'Normal', 'ConfigMapReady', 'Reconcile', `ConfigMap ${name} holds the message`);
}

const manager = new Manager({
  // Namespaces to watch come from WATCH_NAMESPACE (comma-separated; unset or empty: all namespaces).
  fieldManager: 'greeting-operator',
  // A Lease in POD_NAMESPACE (else the service account's namespace, else `default`); 15 s / 10 s / 2 s.
  leaderElection: { id: 'greeting-operator.example.opkit.dev' },
  metricsBindAddress: ':8080',
  healthProbeBindAddress: ':8081',
});

controllerManagedBy(manager)
  .for(GREETING)
  .owns(CONFIG_MAP)
  .withOptions({ maxConcurrentReconciles: 4, reconcileTimeoutMs: 60_000 })
  .complete(greetingReconciler(manager.client, manager.eventRecorder('greeting-operator')));

try {
  // Resolves after SIGTERM/SIGINT and a graceful stop; rejects when leadership is lost.
  await manager.start(setupSignalHandler());
  process.exit(0);
} catch (error) {
  const what = error instanceof LeaderElectionLostError ? 'leader election lost' : 'manager failed';
  manager.logger.error(what, error);
  process.exit(1);
}
