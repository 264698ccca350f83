// Leader for life against a real API server (the envtest tier: etcd and kube-apiserver, no controller-manager):
// two managers in this process, each pretending to be a Pod whose Pod object the test creates. Without a
// controller-manager there is no garbage collector, so the test plays it: once a Pod is gone, it deletes the
// ConfigMaps that Pod owned — what the garbage collector does for the lock in a cluster.
import { randomBytes } from 'node:crypto';
import { setTimeout as pause } from 'node:timers/promises';
import { envtest } from '@opkit/test-cluster/envtest';
import { eventually } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directClient } from '../../src/client/direct-client.js';
import { isNotFound } from '../../src/errors/errors.js';
import { CONFIG_MAP, type ConfigMap, POD, type Pod } from '../../src/kinds/kinds.js';
import { createLogger } from '../../src/log/index.js';
import { Manager } from '../../src/manager/manager.js';
import { RuntimeMetrics } from '../../src/metrics/runtime-metrics.js';
import type { KubeObject, Stored } from '../../src/object.js';

const suffix = randomBytes(4).toString('hex');
const namespace = `for-life-${suffix}`;
/** A Node that reports NotReady, as one whose kubelet stopped posting status (cluster-scoped: named per run). */
const unreachableNode = `for-life-unreachable-${suffix}`;
const LOCK = 'demo-operator-lock';
const api = () => directClient(envtest().kubeConfig);

/** Who runs leader-only runnables right now, and every moment two did. */
const leading = new Set<string>();
const overlaps: string[] = [];
const neverTwo = () => expect(overlaps, 'two replicas led at the same time').toEqual([]);

interface Replica {
  readonly pod: string;
  /** The messages it logged. */
  readonly logged: string[];
  readonly manager: Manager;
  readonly metrics: RuntimeMetrics;
  readonly stop: AbortController;
  running: Promise<void>;
  /** When its leader-only runnable started. */
  ledAt?: number;
}
const replicas: Replica[] = [];

async function createPod(name: string, nodeName?: string): Promise<Stored<Pod>> {
  return api().create<Pod>({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: { containers: [{ name: 'manager', image: 'operator:dev' }], ...(nodeName ? { nodeName } : {}) },
  });
}

/** A manager leading for life as Pod `pod`; without one, as a process outside the cluster. */
function startReplica(pod: string | undefined, name = pod ?? 'outside'): Replica {
  const metrics = new RuntimeMetrics();
  const logged: string[] = [];
  const verbose = process.env.OPKIT_TEST_VERBOSE !== undefined;
  const manager = new Manager({
    kubeConfig: envtest().kubeConfig,
    namespaces: [namespace],
    metrics,
    logger: createLogger({
      level: verbose ? 'debug' : 'info',
      sink: (line) => {
        logged.push((JSON.parse(line) as { msg: string }).msg);
        if (verbose) process.stderr.write(`${line}\n`);
      },
    }),
    leaderElection: {
      mode: 'for-life',
      id: LOCK,
      namespace,
      podName: pod,
      maxBackoffMs: 400,
      ...(pod ? {} : { inCluster: false }),
    },
  });
  const replica: Replica = {
    pod: name,
    logged,
    manager,
    metrics,
    stop: new AbortController(),
    running: Promise.resolve(),
  };
  manager.add({
    start: async (signal) => {
      replica.ledAt = Date.now();
      if (leading.size > 0) overlaps.push(`${name} started while ${[...leading].join(', ')} led`);
      leading.add(name);
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      leading.delete(name);
    },
  });
  replica.running = manager.start(replica.stop.signal);
  replicas.push(replica);
  return replica;
}

async function stopReplica(r: Replica): Promise<void> {
  r.stop.abort();
  await r.running;
}

const masterStatus = async (r: Replica) =>
  (await r.metrics.leaderElectionMasterStatus.get()).values.find((v) => v.labels.name === LOCK)?.value;
const lockOwner = async () => {
  try {
    const lock = await api().get<ConfigMap>(CONFIG_MAP, LOCK, namespace);
    return lock.metadata.ownerReferences?.map((o) => `${o.kind}/${o.name}/${o.uid}`);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
};

/** The garbage collector's part: the lock goes once the Pod that owns it is gone. */
async function collectGarbageOf(pod: Stored<Pod>): Promise<void> {
  await eventually(`pod ${pod.metadata.name} to be gone`, async () => {
    try {
      await api().get(POD, pod.metadata.name, namespace);
      return false;
    } catch (error) {
      return isNotFound(error);
    }
  });
  const { items } = await api().list(CONFIG_MAP, { namespace });
  for (const cm of items) {
    if (cm.metadata.ownerReferences?.some((o) => o.uid === pod.metadata.uid)) {
      await api().delete({ ...CONFIG_MAP, name: cm.metadata.name, namespace });
    }
  }
}

beforeAll(async () => {
  await api().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
});

afterAll(async () => {
  await Promise.all(replicas.map((r) => stopReplica(r).catch(() => {})));
  await api()
    .delete({ apiVersion: 'v1', kind: 'Node', name: unreachableNode })
    .catch(() => {});
  await api()
    .delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace })
    .catch(() => {});
});

describe('leader for life between two managers on a real API server', () => {
  it('the second leads only after the first’s Pod is gone and its lock collected; never both', async () => {
    const podA = await createPod('operator-a');
    await createPod('operator-b');

    const a = startReplica('operator-a');
    await a.manager.elected;
    neverTwo();
    expect(leading).toEqual(new Set(['operator-a']));
    expect(await lockOwner()).toEqual([`Pod/operator-a/${podA.metadata.uid}`]);
    expect(await masterStatus(a)).toBe(1);

    // b looks at the lock with back-off and waits: a's Pod exists.
    const b = startReplica('operator-b');
    await pause(1500);
    neverTwo();
    expect(b.ledAt).toBeUndefined();
    expect(await masterStatus(b)).toBe(0);

    // a's container stops and its Pod is deleted; the lock remains until collected, and b keeps waiting.
    await stopReplica(a);
    expect(leading).toEqual(new Set());
    expect(await lockOwner()).toEqual([`Pod/operator-a/${podA.metadata.uid}`]); // no release on stop
    await api().delete({ ...POD, name: 'operator-a', namespace }, { gracePeriodSeconds: 0 });
    await pause(1000);
    neverTwo();
    expect(b.ledAt).toBeUndefined();

    const collectedAt = Date.now();
    await collectGarbageOf(podA);
    await b.manager.elected;
    neverTwo();
    expect(b.ledAt).toBeGreaterThanOrEqual(collectedAt);
    expect(leading).toEqual(new Set(['operator-b']));
    expect((await lockOwner())?.[0]).toMatch(/^Pod\/operator-b\//);
    expect(await masterStatus(b)).toBe(1);
    console.info(`leader for life: handover ${b.ledAt! - collectedAt} ms after the lock was collected`);
  });

  it('outside a cluster without a Pod name it is a no-op: the manager leads at once and writes no lock', async () => {
    const saved = process.env.POD_NAME;
    delete process.env.POD_NAME;
    try {
      const b = replicas.find((r) => r.pod === 'operator-b');
      if (b) await stopReplica(b);
      await api().delete({ ...CONFIG_MAP, name: LOCK, namespace });
      const outside = startReplica(undefined, 'outside');
      await outside.manager.elected;
      neverTwo();
      expect(leading).toEqual(new Set(['outside']));
      expect(await lockOwner()).toBeUndefined();
      await stopReplica(outside);
    } finally {
      if (saved !== undefined) process.env.POD_NAME = saved;
    }
  });

  it('takes over at once from a leader on a NotReady node, deleting its Pod and the lock, and says so', async () => {
    const node = await api().create<KubeObject & { status?: unknown }>({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: unreachableNode },
    });
    await api().updateStatus({
      ...node,
      status: { conditions: [{ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown' }] },
    });
    const stranded = await createPod('operator-stranded', unreachableNode);
    await api().create<ConfigMap>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: LOCK,
        namespace,
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Pod', name: 'operator-stranded', uid: stranded.metadata.uid },
        ],
      },
    });
    const successor = await createPod('operator-successor');
    const replica = startReplica('operator-successor');
    await replica.manager.elected;
    expect(await lockOwner()).toEqual([`Pod/operator-successor/${successor.metadata.uid}`]);
    // Deleted (with a grace period a kubelet would end: on a node without one it stays terminating).
    const deleted = await api()
      .get(POD, 'operator-stranded', namespace)
      .then((p) => p.metadata.deletionTimestamp !== undefined)
      .catch((error: unknown) => isNotFound(error));
    expect(deleted).toBe(true);
    expect(replica.logged).toContain(
      'deleting the leader pod on a NotReady node, and its lock (that pod may still be running)',
    );
    await stopReplica(replica);
  });
});
