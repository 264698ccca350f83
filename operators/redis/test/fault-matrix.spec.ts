import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSignedCertificate } from '@opkit/controller-runtime/serving';
import { type ApiServerReplica, startApiServerReplica } from '@opkit/test-cluster';
import {
  ApiProxy,
  cellId,
  type FaultOperation,
  type FaultPlan,
  type FaultRun,
  formatMatrix,
  OperatorProcess,
  operatorFromSources,
  reachedShare,
  runFaultMatrix,
} from '@opkit/test-cluster/fault-injection';
import {
  awaitConvergence,
  collectionPath,
  jsonEqual,
  replaceSpec,
  WriteWatch,
} from '@opkit/test-cluster/state-testing';
import { KubeRest, testKubeConfig, useCrds, useTestNamespace } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  ClusterClient,
  type RedisClusterSpec,
  type RedisClusterStatus,
  redisClusterCrd,
} from '../src/index.js';
import { KeySet } from './support/data.js';
import { REDIS_IMAGE } from './support/operator.js';
import { clusterMatches, clusterReady } from './support/oracle.js';

// Sieve-style fault injection on the real node: the Redis operator runs as its own process behind a proxy
// that numbers its writes, and each multi-step operation (scale out, scale in, a rolling restart for a
// redis.conf change) runs once cleanly, then again with the operator killed right after each of its writes in
// turn, with watch events held back after some, and with its API server restarted after some. Every run must
// end as the clean one does: the cluster the spec describes, quiet, no owned object created twice, and every
// key written before the operation readable with its last value.
//
// The operator talks to an API server of its own: a replica of the shared cluster's (same etcd, certificates
// and flags, as in a control plane of several), which the matrix restarts while the rest of the cluster, its
// controllers and the real node's kubelet included, keeps talking to the cluster's own API server.
//
// One RedisCluster serves every cell: each operation's `prepare` brings it back to where the operation starts
// (a scale out starts at 6 nodes). The scale outs and scale ins run in turn, so each starts where the cell
// before it ended and `prepare` only confirms that; no cell needs a new cluster.

const ns = useTestNamespace({
  prefix: 'redis-faults',
  labels: { 'pod-security.kubernetes.io/enforce': 'restricted' },
});
useCrds([redisClusterCrd], { namespace: () => ns.name });
const NAME = 'faults';
const SETTLE_MS = 500;
const TIMEOUT_MS = 240_000;
const OWNED = [
  { apiVersion: 'apps/v1', plural: 'statefulsets' },
  { apiVersion: 'v1', plural: 'services' },
  { apiVersion: 'v1', plural: 'configmaps' },
  { apiVersion: 'v1', plural: 'secrets' },
  { apiVersion: 'policy/v1', plural: 'poddisruptionbudgets' },
] as const;
const REDIS_CLUSTERS = { apiVersion: 'cache.example.com/v1', plural: 'redisclusters' } as const;

interface LiveCluster {
  metadata: { uid: string; resourceVersion: string };
  spec: RedisClusterSpec;
  status?: RedisClusterStatus;
}
interface Secret {
  data?: Record<string, string>;
}

let rest: KubeRest;
let replica: ApiServerReplica;
let proxy: ApiProxy;
let watch: WriteWatch | undefined;
let operatorKubeconfig: string;
let kubeconfigDir: string | undefined;

beforeAll(async () => {
  rest = new KubeRest(testKubeConfig());
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
  kubeconfigDir = mkdtempSync(join(tmpdir(), 'redis-fault-matrix-'));
  operatorKubeconfig = join(kubeconfigDir, 'operator.kubeconfig');
  writeFileSync(operatorKubeconfig, JSON.stringify(config), { mode: 0o600 });
});

afterAll(async () => {
  await watch?.stop();
  await proxy?.close();
  // The replica would die with this test file's process anyway; stopping it here ends it before the next file.
  await replica?.stop();
  if (kubeconfigDir) rmSync(kubeconfigDir, { recursive: true, force: true });
  rest?.close();
});

const operator = () =>
  new OperatorProcess(
    operatorFromSources({
      main: join(import.meta.dirname, '..', 'src', 'main.ts'),
      kubeconfig: operatorKubeconfig,
      env: { WATCH_NAMESPACE: ns.name, POD_NAMESPACE: ns.name, RELATED_IMAGE_REDIS: REDIS_IMAGE },
    }),
  );

const path = () => `${collectionPath(REDIS_CLUSTERS, ns.name)}/${NAME}`;

async function writeSpec(spec: RedisClusterSpec): Promise<void> {
  await replaceSpec(rest, path(), spec);
}

/** The cluster converged to `spec` per the state test's oracle and readiness, and the operator quiet. */
async function converged(spec: RedisClusterSpec): Promise<string[]> {
  if (!watch) throw new Error('the RedisCluster was never created');
  const { failure } = await awaitConvergence<RedisClusterSpec, RedisClusterStatus>({
    rest,
    namespace: ns.name,
    path: path(),
    watch,
    oracle: clusterMatches,
    ready: clusterReady,
    written: spec,
    settleMs: SETTLE_MS,
    timeoutMs: TIMEOUT_MS,
  });
  return failure ? [`${failure.kind}: ${failure.detail}`] : [];
}

/** Brings the one RedisCluster of the matrix to `spec` and waits until it has converged. */
async function bringTo(spec: RedisClusterSpec): Promise<void> {
  const live = await rest.request<LiveCluster>('GET', path()).catch(() => undefined);
  if (!live) {
    const created = await rest.request<LiveCluster>('POST', collectionPath(REDIS_CLUSTERS, ns.name), {
      body: { apiVersion: REDIS_CLUSTERS.apiVersion, kind: 'RedisCluster', metadata: { name: NAME }, spec },
    });
    watch = new WriteWatch(rest, ns.name, REDIS_CLUSTERS, OWNED);
    watch.track({ name: NAME, uid: created.metadata.uid });
  } else if (!jsonEqual(live.spec, spec)) {
    await writeSpec(spec);
  }
  const problems = await converged(spec);
  if (problems.length > 0)
    throw new Error(`the RedisCluster never converged to where the operation starts: ${problems.join('; ')}`);
}

/** A client of the cluster as it is now, with its password. */
async function client(): Promise<ClusterClient> {
  const live = await rest.request<LiveCluster>('GET', path());
  const secret = await rest.request<Secret>('GET', `/api/v1/namespaces/${ns.name}/secrets/${NAME}-auth`);
  const password = Buffer.from(secret.data?.password ?? '', 'base64').toString('utf8');
  const seeds = (live.status?.members ?? []).map((m) => `${m.ip}:6379`);
  return new ClusterClient(seeds, { password });
}

/** Keys written before each operation, with new values every time: all must be read back after it. */
let keys: KeySet | undefined;

async function writeKeys(): Promise<void> {
  const writer = await client();
  keys = new KeySet(writer, 'faults', 2_000);
  try {
    await keys.write();
  } finally {
    writer.close();
  }
}

async function lostKeys(): Promise<string[]> {
  if (!keys) return ['no keys were written before the operation'];
  keys.client = await client();
  try {
    const missing = await keys.missing();
    return missing.length > 0
      ? [`${missing.length} of ${keys.keys.length} keys lost, e.g. ${missing[0]}`]
      : [];
  } finally {
    keys.client.close();
  }
}

/** Owned objects created (POST answered 201) more than once. */
function duplicateCreations(run: FaultRun): string[] {
  const created = new Map<string, number>();
  for (const w of run.proxy.writes) {
    if (w.method === 'POST' && w.status === 201 && !w.path.includes('/events'))
      created.set(w.path, (created.get(w.path) ?? 0) + 1);
  }
  return [...created].filter(([, n]) => n > 1).map(([p, n]) => `${n} creations through ${p}`);
}

/**
 * CI runs a sample of the cells (a crash and an API server restart at every 8th write of a scale, and at the
 * 1st and last of a rolling restart's about 70 writes);
 * `FAULT_MATRIX=full` runs every fault at every write of every operation: a crash, an API server restart, held
 * and held-and-reordered watch events (a rolling restart's part is about 270 cells of a minute or more: run it
 * in parts with `FAULT_CELL`).
 */
const full = process.env.FAULT_MATRIX === 'full';

/**
 * Every pod a rolling restart restarts comes back empty and syncs in full from its primary, and Redis waits
 * `repl-diskless-sync-delay` (5 s) before a full sync, for more replicas to share it. CI's sample injects its
 * faults at a rolling restart's first write (before any pod restarts) and last (after every one has synced),
 * never during a sync, so there that wait is 0. The full matrix keeps Redis's default: its cells right after
 * the operator's "waiting for … to sync" find the replica still syncing.
 */
const SYNC: Record<string, string> = full ? {} : { 'repl-diskless-sync-delay': '0' };

// Specs as the API server stores them (with the schema's default), so bringing the cluster to one it is
// already at writes nothing.
const SIX: RedisClusterSpec = { size: 6, replicasPerPrimary: 1, config: { ...SYNC, hz: '10' } };
const EIGHT: RedisClusterSpec = { size: 8, replicasPerPrimary: 1, config: { ...SYNC, hz: '10' } };

/** A scale from `from` to `to`: the cluster brought to `from` with fresh keys, then the spec changed. */
function scale(name: string, from: RedisClusterSpec, to: RedisClusterSpec): FaultOperation {
  return {
    name,
    prepare: async () => {
      await bringTo(from);
      await writeKeys();
    },
    act: () => writeSpec(to),
    check: async (run) => [...(await converged(to)), ...(await lostKeys()), ...duplicateCreations(run)],
  };
}

/**
 * A rolling restart: redis.conf's `hz` flips between 10 and 20 (so no cell has to undo the one before), and
 * every pod is restarted in turn.
 */
const restartTarget = new Map<string, RedisClusterSpec>();
const restart: FaultOperation = {
  name: 'restart',
  prepare: async (run) => {
    const live = await rest.request<LiveCluster>('GET', path()).catch(() => undefined);
    const hz = live?.spec.config?.hz === '20' ? '20' : '10';
    await bringTo({ ...SIX, config: { ...SYNC, hz } });
    await writeKeys();
    restartTarget.set(run.name, { ...SIX, config: { ...SYNC, hz: hz === '10' ? '20' : '10' } });
  },
  act: (run) => writeSpec(restartTarget.get(run.name) ?? SIX),
  check: async (run) => [
    ...(await converged(restartTarget.get(run.name) ?? SIX)),
    ...(await lostKeys()),
    ...duplicateCreations(run),
  ],
};

async function expectEveryCellPasses(operations: FaultOperation[], faults: FaultPlan[]): Promise<void> {
  const report = await runFaultMatrix({
    operations,
    faults,
    // A scale out's cell ends where a scale in's starts and the other way round: in turn, no cell's `prepare`
    // has to run the opposite operation first.
    interleave: true,
    proxy,
    operator,
    // Only the operator's API server, the replica, restarts: the shared one, which the cluster's controllers,
    // the kubelet and the test's own reads and writes use, keeps serving, so nothing but the operator has to
    // recover and no probe of the cluster's health is needed before the next cell.
    restartApiServer: () => replica.restart(),
    watchDelayMs: 2000,
    log: (line) => console.log(`fault matrix: ${line}`),
  });
  console.log(formatMatrix(report));
  expect(report.failed.map((c) => `${cellId(c)} ${c.problems.join('; ')}`)).toEqual([]);
  // Timing may shorten a run (fewer status updates), skipping its last cells, but not most of them.
  expect(reachedShare(report)).toBeGreaterThan(0.7);
}

/** Every fault of the full matrix, or in CI a crash and an API server restart at every `ciSample`th write. */
function faultPlans(ciSample: number): FaultPlan[] {
  return full
    ? [{ fault: 'crash' }, { fault: 'api-restart' }, { fault: 'watch-delay' }, { fault: 'watch-reorder' }]
    : [
        { fault: 'crash', sample: ciSample },
        { fault: 'api-restart', sample: ciSample },
      ];
}

describe('the Redis operator under faults at every step', () => {
  it('ends every scale out and scale in as the spec says, quiet, with every key', async () => {
    await expectEveryCellPasses(
      [scale('scale-out', SIX, EIGHT), scale('scale-in', EIGHT, SIX)],
      faultPlans(8),
    );
  }, 3_600_000);

  it('ends every rolling restart as the spec says, quiet, with every key', async () => {
    await expectEveryCellPasses([restart], faultPlans(96));
  }, 7_200_000);
});
