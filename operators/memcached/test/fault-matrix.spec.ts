import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '@opkit/controller-runtime';
import { selfSignedCertificate } from '@opkit/controller-runtime/serving';
import { type ApiServerReplica, KubeApiError, startApiServerReplica } from '@opkit/test-cluster';
import {
  ApiProxy,
  cellId,
  type FaultOperation,
  type FaultRun,
  formatMatrix,
  OperatorProcess,
  operatorFromSources,
  type ProxiedWrite,
  reachedShare,
  runFaultMatrix,
} from '@opkit/test-cluster/fault-injection';
import { awaitConvergence, collectionPath, WriteWatch } from '@opkit/test-cluster/state-testing';
import { KubeRest, testKubeConfig, useCrds } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FINALIZER } from '../src/controller/memcached-controller.js';
import { type MemcachedSpec, type MemcachedStatus, memcachedCrd } from '../src/index.js';
import { MEMCACHED_IMAGE } from './support/operator.js';
import { memcachedReady, operandsMatch } from './support/oracle.js';

// Sieve-style fault injection: the Memcached operator runs as its own process behind a proxy that numbers its
// writes; each operation (create, resize, delete) is run once cleanly, then again with a fault injected right
// after each of its writes in turn. Every run must end as the clean one does: converged, quiet, with no
// duplicate side effect and nothing left behind.
//
// What counts as a duplicate: a second Deployment, Service or PDB (they are named after the Memcached, so the
// API server would refuse one: a POST that succeeded after the object existed is counted instead); a write to
// the Memcached that succeeded after its finalizer was removed (re-adding it); an owned object created after
// the deletion began. Events: a restarted operator may legitimately emit again what its predecessor emitted
// (it does not know they were), so each reason may appear at most as often as in the clean run times the
// number of operator processes of the run.

// The operator runs without its webhooks (they would call a process this file kills), so the specs carry
// what the defaulting webhook would add.
// The operator talks to an API server of its own: a replica of the shared kwok cluster's (same etcd,
// certificates and flags, as in a control plane of several), which the matrix restarts while the cluster's
// controllers and kwok keep talking to the cluster's own API server. So a restart disturbs only the operator,
// and nothing else has to recover before the next cell.
let replica: ApiServerReplica;
let rest: KubeRest;
let proxy: ApiProxy;
let watch: WriteWatch;
let operatorKubeconfig: string;
let kubeconfigDir: string | undefined;
const namespace = 'fault-matrix';
const SETTLE_MS = 500;
const TIMEOUT_MS = 30_000;
const GARBAGE_COLLECTION_MS = 60_000;
/** After a restart the operator relists through its API server before it acts again. */
const AFTER_RESTART_MS = 60_000;

/** How long a cell's object may take to converge. */
const convergenceTimeout = (run: FaultRun) => (run.fault === 'api-restart' ? AFTER_RESTART_MS : TIMEOUT_MS);

/** Every fault at every step (hours), instead of the sample CI runs. */
const full = process.env.FAULT_MATRIX === 'full';

const MEMCACHEDS = collectionPath(
  { apiVersion: 'cache.example.com/v1beta1', plural: 'memcacheds' },
  namespace,
);
const OWNED = [
  { apiVersion: 'apps/v1', plural: 'deployments' },
  { apiVersion: 'v1', plural: 'services' },
  { apiVersion: 'policy/v1', plural: 'poddisruptionbudgets' },
] as const;

useCrds([memcachedCrd], { namespace: () => namespace });

/** An object as the matrix reads it back: the API server has given it its name and uid. */
type Meta = KubeObject & { metadata: { name: string; uid: string } };
interface Event {
  reason?: string;
  count?: number;
  involvedObject: { uid?: string };
}

beforeAll(async () => {
  rest = new KubeRest(testKubeConfig());
  await rest.request('POST', '/api/v1/namespaces', { body: { metadata: { name: namespace } } });
  replica = await startApiServerReplica(inject('opkitKubeconfig'));
  // The proxy forwards to the replica and presents a certificate of its own; the operator's kubeconfig (the
  // admin's, pointed at the proxy) trusts exactly that one.
  const serving = selfSignedCertificate({ commonName: 'api-proxy', hosts: ['127.0.0.1'] });
  proxy = await ApiProxy.start(replica.kubeConfig, serving);
  const config = JSON.parse(testKubeConfig().exportConfig()) as {
    clusters: { cluster: Record<string, unknown> }[];
  };
  for (const entry of config.clusters) {
    entry.cluster = {
      server: proxy.url,
      'certificate-authority-data': Buffer.from(serving.cert).toString('base64'),
    };
  }
  // The admin's credentials: in a directory of this file's own, removed after it.
  kubeconfigDir = mkdtempSync(join(tmpdir(), 'memcached-fault-matrix-'));
  operatorKubeconfig = join(kubeconfigDir, 'operator.kubeconfig');
  writeFileSync(operatorKubeconfig, JSON.stringify(config), { mode: 0o600 });
  watch = new WriteWatch(
    rest,
    namespace,
    { apiVersion: 'cache.example.com/v1beta1', plural: 'memcacheds' },
    OWNED,
  );
}, 300_000);

afterAll(async () => {
  await watch?.stop();
  await proxy?.close();
  // The replica would die with this test file's process anyway; stopping it here ends it before the next file.
  await replica?.stop();
  if (kubeconfigDir) rmSync(kubeconfigDir, { recursive: true, force: true });
  await rest?.request('DELETE', `/api/v1/namespaces/${namespace}`).catch(() => undefined);
  rest?.close();
});

const operator = () =>
  new OperatorProcess(
    operatorFromSources({
      main: join(import.meta.dirname, '..', 'src', 'main.ts'),
      kubeconfig: operatorKubeconfig,
      env: {
        ENABLE_WEBHOOKS: 'false',
        WATCH_NAMESPACE: namespace,
        POD_NAMESPACE: namespace,
        RELATED_IMAGE_MEMCACHED: MEMCACHED_IMAGE,
      },
    }),
  );

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Requests that may meet the API server while it restarts: tried again until it answers. */
async function retrying<T>(what: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await what();
    } catch (error) {
      if (error instanceof KubeApiError && error.status < 500) throw error;
      if (attempt > 100) throw error;
      await sleep(200);
    }
  }
}

async function create(name: string, spec: MemcachedSpec): Promise<Meta> {
  const created = await retrying(() =>
    rest.request<Meta>('POST', MEMCACHEDS, {
      body: {
        apiVersion: 'cache.example.com/v1beta1',
        kind: 'Memcached',
        metadata: { name, namespace },
        spec,
      },
    }),
  );
  watch.track({ name, uid: created.metadata.uid });
  return created;
}

/** The Memcached converged to `spec` per the state test's oracle and readiness, and the operator quiet. */
async function converged(name: string, spec: MemcachedSpec, timeoutMs = TIMEOUT_MS): Promise<string[]> {
  const { failure } = await retrying(() =>
    awaitConvergence<MemcachedSpec, MemcachedStatus>({
      rest,
      namespace,
      path: `${MEMCACHEDS}/${name}`,
      watch,
      oracle: operandsMatch,
      ready: memcachedReady,
      written: spec,
      settleMs: SETTLE_MS,
      timeoutMs,
    }),
  );
  return failure ? [`${failure.kind}: ${failure.detail}`] : [];
}

async function ownedBy(uid: string): Promise<string[]> {
  const found: string[] = [];
  for (const type of OWNED) {
    const list = await retrying(() =>
      rest.request<{ items: Meta[] }>('GET', collectionPath(type, namespace)),
    );
    for (const item of list.items) {
      if (item.metadata.ownerReferences?.some((r) => r.uid === uid))
        found.push(`${type.plural}/${item.metadata.name}`);
    }
  }
  return found;
}

/** The Events about the object, by reason (an aggregated Event counts as often as it says). */
async function eventsOf(uid: string): Promise<Map<string, number>> {
  const list = await retrying(() =>
    rest.request<{ items: Event[] }>('GET', `/api/v1/namespaces/${namespace}/events`),
  );
  const byReason = new Map<string, number>();
  for (const e of list.items.filter((e) => e.involvedObject.uid === uid)) {
    byReason.set(e.reason ?? '', (byReason.get(e.reason ?? '') ?? 0) + (e.count ?? 1));
  }
  return byReason;
}

/** Events of the clean run, by operation: what a faulted run is compared with. */
const cleanEvents = new Map<string, Map<string, number>>();

async function eventProblems(operation: string, run: FaultRun, uid: string): Promise<string[]> {
  const events = await eventsOf(uid);
  const clean = cleanEvents.get(operation);
  if (!clean) {
    cleanEvents.set(operation, events);
    return [];
  }
  // While its API server restarts the operator's reads and writes fail for a while and it rightly reports
  // what it could not do, then its recovery: in such a cell, reasons the clean run never had are not counted,
  // and each of them may be followed by one more of the clean run's.
  const reported = (reason: string) => run.fault === 'api-restart' && !clean.has(reason);
  const recoveries = [...events].reduce((n, [reason, count]) => (reported(reason) ? n + count : n), 0);
  const allowed = (reason: string) => (clean.get(reason) ?? 0) * run.operator.starts + recoveries;
  return [...events]
    .filter(([reason, count]) => !reported(reason) && count > allowed(reason))
    .map(
      ([reason, count]) =>
        `${count} ${reason} events, the clean run has ${clean.get(reason) ?? 0} with one operator, this run ` +
        `${run.operator.starts}${recoveries ? ` and ${recoveries} reported during the restart` : ''}`,
    );
}

/** Owned objects created (POST answered 201) more than once, or writes to the Memcached after it was gone. */
function duplicateWrites(run: FaultRun): string[] {
  const created = new Map<string, number>();
  for (const w of run.proxy.writes) {
    if (w.method === 'POST' && w.status === 201 && !w.path.includes('/events')) {
      created.set(w.path, (created.get(w.path) ?? 0) + 1);
    }
  }
  return [...created].filter(([, n]) => n > 1).map(([path, n]) => `${n} creations through ${path}`);
}

const uids = new Map<string, string>();

const createOperation: FaultOperation = {
  name: 'create',
  act: async (run) => {
    uids.set(run.name, (await create(run.name, { replicas: 2, threads: 4 })).metadata.uid);
  },
  check: async (run) => {
    const uid = uids.get(run.name) ?? '';
    return [
      ...(await converged(run.name, { replicas: 2, threads: 4 }, convergenceTimeout(run))),
      ...duplicateWrites(run),
      ...(await eventProblems('create', run, uid)),
    ];
  },
};

const resizeOperation: FaultOperation = {
  name: 'resize',
  prepare: async (run) => {
    uids.set(run.name, (await create(run.name, { replicas: 1, threads: 4 })).metadata.uid);
    const problems = await converged(run.name, { replicas: 1, threads: 4 });
    if (problems.length > 0)
      throw new Error(`the Memcached never converged before resizing: ${problems.join('; ')}`);
  },
  act: async (run) => {
    await retrying(async () => {
      const live = await rest.request<Meta & { spec: MemcachedSpec }>('GET', `${MEMCACHEDS}/${run.name}`);
      await rest.request('PUT', `${MEMCACHEDS}/${run.name}`, {
        body: { ...live, spec: { replicas: 3, threads: 4 } },
      });
    });
  },
  check: async (run) => [
    ...(await converged(run.name, { replicas: 3, threads: 4 }, convergenceTimeout(run))),
    ...duplicateWrites(run),
    ...(await eventProblems('resize', run, uids.get(run.name) ?? '')),
  ],
};

const deleteOperation: FaultOperation = {
  name: 'delete',
  prepare: resizeOperation.prepare,
  act: async (run) => {
    await retrying(() => rest.request('DELETE', `${MEMCACHEDS}/${run.name}`));
  },
  check: async (run) => {
    const uid = uids.get(run.name) ?? '';
    const problems: string[] = [];
    const deadline = Date.now() + TIMEOUT_MS;
    for (;;) {
      const live = await retrying(() => rest.request<Meta>('GET', `${MEMCACHEDS}/${run.name}`)).catch(
        (error: unknown) => {
          if (error instanceof KubeApiError && error.status === 404) return undefined;
          throw error;
        },
      );
      if (!live) break;
      if (Date.now() > deadline) {
        problems.push(`the Memcached is still there, finalizers ${JSON.stringify(live.metadata.finalizers)}`);
        break;
      }
      await sleep(50);
    }
    // Owned objects go by garbage collection, which this cluster runs (kube-controller-manager's, through the
    // cluster's own API server); none may be re-created meanwhile. It gets a deadline of its own.
    const collected = Date.now() + GARBAGE_COLLECTION_MS;
    for (;;) {
      const left = await ownedBy(uid);
      if (left.length === 0 && Date.now() - watch.lastWrite >= SETTLE_MS) break;
      if (Date.now() > collected) {
        problems.push(`left behind or still written: ${left.join(', ') || 'writes continue'}`);
        break;
      }
      await sleep(100);
    }
    // The operator's only writes to the Memcached itself (not its status) remove the finalizer: exactly one
    // succeeds (the proxy records a removal sent as the operator was killed too). None is possible only when
    // the API server went away before it answered one, which it may still have applied.
    const writes = run.proxy.writes;
    const isRemoval = (w: ProxiedWrite) =>
      w.path.split('?')[0]?.endsWith(`/memcacheds/${run.name}`) &&
      (w.method === 'PUT' || w.method === 'PATCH');
    const removals = writes.filter((w) => isRemoval(w) && w.status > 0 && w.status < 300);
    const unknown = writes.filter((w) => isRemoval(w) && w.status === 0);
    if (removals.length > 1 || (removals.length === 0 && unknown.length === 0)) {
      problems.push(`${removals.length} successful removals of the finalizer ${FINALIZER}, not one`);
    }
    const recreated = writes.filter(
      (w) => w.method === 'POST' && w.status === 201 && !w.path.includes('/events'),
    );
    if (recreated.length > 0)
      problems.push(`created after the deletion began: ${recreated.map((w) => w.path).join(', ')}`);
    return [...problems, ...(await eventProblems('delete', run, uid))];
  },
};

describe('the Memcached operator under faults at every step', () => {
  it('ends every create, resize and delete converged, quiet, without duplicates or leftovers', async () => {
    const report = await runFaultMatrix({
      operations: [createOperation, resizeOperation, deleteOperation],
      // A crash at every step; the slower faults at every 3rd (watches held, or held and reordered) and 5th
      // step (restarts), the first and last always. `FAULT_MATRIX=full` injects every fault at every step.
      faults: [
        { fault: 'crash' },
        { fault: 'watch-delay', sample: full ? 1 : 3 },
        { fault: 'watch-reorder', sample: full ? 1 : 3 },
        { fault: 'api-restart', sample: full ? 1 : 5 },
      ],
      proxy,
      operator,
      // Only the operator's API server, the replica, restarts: the cluster's controllers and kwok keep
      // serving, so no probe of the cluster's health is needed before the next cell.
      restartApiServer: () => replica.restart(),
      watchDelayMs: 2000,
      log: (line) => console.log(`fault matrix: ${line}`),
    });
    console.log(formatMatrix(report));
    expect(report.failed.map((c) => `${cellId(c)} ${c.problems.join('; ')}`)).toEqual([]);
    // Timing may shorten a run (fewer status updates), skipping its last cells, but not most of them.
    expect(reachedShare(report)).toBeGreaterThan(0.7);
  }, 900_000);
});
