// Micro-benchmarks of @opkit/controller-runtime: reconcile throughput of a real Controller, admission webhook
// latency, heap cost of the informer cache per object, and the time a fresh informer needs to list and sync
// 10,000 objects.
//
//   node --expose-gc --conditions=@opkit/source --import tsx src/runtime.ts   (or: npx nx run bench:runtime)

import { fileURLToPath } from 'node:url';
import { type DirectClient, directClient } from '@opkit/controller-runtime/client';
import { RuntimeMetrics } from '@opkit/controller-runtime/metrics';
import { KubeRest, type LocalCluster, startCluster } from '@opkit/test-cluster';
import { type InformerRun, informerRun, type TransformKind } from './cache-bench.js';
import { CONFIG_MAP, createConfigMaps, createNamespace, DATA_KEYS } from './fixtures.js';
import { garbageCollector, settledHeapUsed } from './heap.js';
import { formatMachine, machineInfo } from './machine.js';
import { offlineCache, type ReconcileRun, type ReconcilerKind, reconcileRun } from './reconcile-bench.js';
import { formatTable, type Metric, metric, writeJson } from './report.js';
import { type WebhookRun, webhookRun } from './webhook-bench.js';

const CONFIG = {
  reconcile: {
    keys: 20_000,
    warmupRuns: 1,
    runs: 7,
    workers: [1, 8],
    reconcilers: ['noop', 'setImmediate'] as ReconcilerKind[],
    timeoutMs: 120_000,
  },
  webhook: {
    requests: 4_000,
    concurrency: [1, 16],
    warmupRuns: 1,
    runs: 5,
  },
  cache: {
    namespace: 'bench-cache',
    /** ConfigMaps the heap is measured with. */
    objects: 5_000,
    /** ConfigMaps in the same namespace for the relist (the first 5,000 plus as many again). */
    relistObjects: 10_000,
    dataKeysPerObject: DATA_KEYS,
    createConcurrency: 32,
    warmupRuns: 1,
    runs: 3,
    timeoutMs: 180_000,
  },
};

/** `--no-cluster`: only the figures that need no cluster (reconciles and webhook reviews), in seconds. */
const NO_CLUSTER = process.argv.slice(2).includes('--no-cluster');

const RESULT_FILE = fileURLToPath(new URL('../results/runtime.json', import.meta.url));

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

const fixed = (value: number, digits = 0): string => value.toFixed(digits);

interface CreateRecord {
  readonly namespace: string;
  readonly count: number;
  readonly elapsedMs: number;
  readonly perSecond: number;
}

async function reconcileBenchmarks(metrics: Metric[], runs: Record<string, unknown[]>): Promise<void> {
  const { keys, warmupRuns, timeoutMs } = CONFIG.reconcile;
  const cache = offlineCache();
  for (const reconciler of CONFIG.reconcile.reconcilers) {
    for (const workers of CONFIG.reconcile.workers) {
      const experiment = `reconcile.${reconciler}.workers-${workers}`;
      const measured: ReconcileRun[] = [];
      for (let i = 0; i < warmupRuns + CONFIG.reconcile.runs; i++) {
        await settledHeapUsed();
        const run = await reconcileRun({ workers, reconciler, keys, cache, timeoutMs });
        const warmup = i < warmupRuns;
        log(
          `${experiment}${warmup ? ' (warm-up)' : ''}: ${keys} reconciles in ${fixed(run.elapsedMs, 1)} ms ` +
            `= ${fixed(run.reconcilesPerSecond)}/s`,
        );
        if (!warmup) measured.push(run);
      }
      runs[experiment] = measured;
      const title = `${reconciler === 'noop' ? 'No-op' : 'setImmediate'} reconciles, ${workers} worker${workers > 1 ? 's' : ''}`;
      metrics.push(
        metric(
          experiment,
          `${experiment}.rate`,
          title,
          'reconciles/s',
          'higher',
          measured.map((r) => r.reconcilesPerSecond),
        ),
      );
    }
  }
}

async function webhookBenchmarks(metrics: Metric[], runs: Record<string, unknown[]>): Promise<void> {
  const { requests, warmupRuns } = CONFIG.webhook;
  for (const concurrency of CONFIG.webhook.concurrency) {
    const experiment = `webhook.concurrency-${concurrency}`;
    const measured: WebhookRun[] = [];
    for (let i = 0; i < warmupRuns + CONFIG.webhook.runs; i++) {
      const run = await webhookRun({ requests, concurrency });
      const warmup = i < warmupRuns;
      log(
        `${experiment}${warmup ? ' (warm-up)' : ''}: ${run.requests} reviews in ${fixed(run.elapsedMs)} ms = ` +
          `${fixed(run.requestsPerSecond)}/s, p50 ${fixed(run.p50Micros)} µs, p99 ${fixed(run.p99Micros)} µs`,
      );
      if (!warmup) measured.push(run);
    }
    runs[experiment] = measured;
    const title = `Admission reviews, ${concurrency} at a time`;
    metrics.push(
      metric(
        experiment,
        `${experiment}.rate`,
        `${title} (rate)`,
        'reviews/s',
        'higher',
        measured.map((r) => r.requestsPerSecond),
      ),
      metric(
        experiment,
        `${experiment}.p50`,
        `${title} (p50 latency)`,
        'µs',
        'lower',
        measured.map((r) => r.p50Micros),
      ),
      metric(
        experiment,
        `${experiment}.p99`,
        `${title} (p99 latency)`,
        'µs',
        'lower',
        measured.map((r) => r.p99Micros),
      ),
    );
  }
}

async function heapBenchmarks(
  client: DirectClient,
  metrics: Metric[],
  runs: Record<string, unknown[]>,
): Promise<void> {
  const { namespace, warmupRuns, timeoutMs } = CONFIG.cache;
  // A first sync warms connections, discovery and the JIT, so the measured runs compare like with like.
  for (let i = 0; i < warmupRuns; i++) {
    const run = await informerRun({
      client,
      namespace,
      transform: 'stripManagedFields',
      measureHeap: true,
      timeoutMs,
    });
    log(`cache warm-up: ${run.objects} objects synced in ${fixed(run.syncMs)} ms`);
  }
  const transforms: TransformKind[] = ['stripManagedFields', 'identity'];
  for (const transform of transforms) {
    const experiment = `cache.heap.${transform}`;
    const measured: InformerRun[] = [];
    for (let i = 0; i < CONFIG.cache.runs; i++) {
      const run = await informerRun({ client, namespace, transform, measureHeap: true, timeoutMs });
      const heap = run.heap!;
      log(
        `${experiment}: ${run.objects} objects, heap +${fixed(heap.deltaBytes / 1024)} KiB = ` +
          `${fixed(heap.bytesPerObject)} B/object (JSON ${fixed(heap.jsonBytesPerObject)} B), synced in ${fixed(run.syncMs)} ms`,
      );
      measured.push(run);
    }
    runs[experiment] = measured;
    const label = transform === 'identity' ? 'managedFields kept' : 'managedFields stripped';
    metrics.push(
      metric(
        experiment,
        `${experiment}.bytesPerObject`,
        `Cache heap per object (${label})`,
        'bytes',
        'lower',
        measured.map((r) => r.heap!.bytesPerObject),
      ),
      metric(
        experiment,
        `${experiment}.kibPer1000`,
        `Cache heap per 1,000 objects (${label})`,
        'KiB',
        'lower',
        measured.map((r) => r.heap!.kibPer1000Objects),
      ),
    );
  }
}

/** The informer's fixed heap cost (reflector, watch, indexes) with (almost) nothing to cache. */
async function baselineBenchmark(
  client: DirectClient,
  metrics: Metric[],
  runs: Record<string, unknown[]>,
): Promise<void> {
  const { namespace, warmupRuns, timeoutMs } = CONFIG.cache;
  const experiment = 'cache.heap.emptyNamespace';
  const measured: InformerRun[] = [];
  for (let i = 0; i < warmupRuns + CONFIG.cache.runs; i++) {
    const run = await informerRun({
      client,
      namespace,
      transform: 'stripManagedFields',
      measureHeap: true,
      timeoutMs,
    });
    const warmup = i < warmupRuns;
    log(
      `${experiment}${warmup ? ' (warm-up)' : ''}: ${run.objects} object(s), ` +
        `heap +${fixed(run.heap!.deltaBytes / 1024, 1)} KiB, synced in ${fixed(run.syncMs)} ms`,
    );
    if (!warmup) measured.push(run);
  }
  runs[experiment] = measured;
  metrics.push(
    metric(
      experiment,
      `${experiment}.kib`,
      'Informer fixed heap (empty namespace)',
      'KiB',
      'lower',
      measured.map((r) => r.heap!.deltaBytes / 1024),
    ),
  );
}

async function relistBenchmark(
  client: DirectClient,
  metrics: Metric[],
  runs: Record<string, unknown[]>,
): Promise<void> {
  const { namespace, timeoutMs } = CONFIG.cache;
  const experiment = 'cache.relist';
  const measured: InformerRun[] = [];
  for (let i = 0; i < CONFIG.cache.runs; i++) {
    await settledHeapUsed();
    const run = await informerRun({
      client,
      namespace,
      transform: 'stripManagedFields',
      measureHeap: false,
      timeoutMs,
    });
    log(
      `${experiment}: ${run.objects} objects listed and synced in ${fixed(run.syncMs)} ms = ${fixed(run.objectsPerSecond)}/s`,
    );
    measured.push(run);
  }
  runs[experiment] = measured;
  const objects = measured[0]!.objects.toLocaleString('en-US');
  metrics.push(
    metric(
      experiment,
      `${experiment}.syncMs`,
      `Relist + sync of ${objects} objects (time)`,
      'ms',
      'lower',
      measured.map((r) => r.syncMs),
    ),
    metric(
      experiment,
      `${experiment}.objectsPerSecond`,
      `Relist + sync of ${objects} objects (rate)`,
      'objects/s',
      'higher',
      measured.map((r) => r.objectsPerSecond),
    ),
  );
}

async function main(): Promise<void> {
  const startedAt = new Date();
  garbageCollector(); // fail early without a reachable GC
  const machine = machineInfo();
  log(`machine:\n${formatMachine(machine)}`);

  const metrics: Metric[] = [];
  const runs: Record<string, unknown[]> = {};
  const creates: CreateRecord[] = [];
  let kubernetesVersion = 'unknown';

  log(`reconcile throughput: ${CONFIG.reconcile.keys} keys per run`);
  await reconcileBenchmarks(metrics, runs);
  log(`admission webhook: ${CONFIG.webhook.requests} reviews per run`);
  await webhookBenchmarks(metrics, runs);

  let cluster: LocalCluster | undefined;
  let connected: DirectClient | undefined;
  if (NO_CLUSTER) log('--no-cluster: no cache figures');
  else
    try {
      log('starting a 1-node cluster');
      cluster = await startCluster({
        realNode: false,
        nodes: 1,
        onProgress: (line) => log(`cluster: ${line}`),
      });
      const client = directClient(cluster.kubeConfig, {
        metrics: new RuntimeMetrics({ processMetrics: false }),
      });
      connected = client;
      const rest = new KubeRest(cluster.kubeConfig);
      try {
        kubernetesVersion =
          (await rest.request<{ gitVersion?: string }>('GET', '/version')).gitVersion ?? kubernetesVersion;
      } finally {
        rest.close();
      }
      await client.mapping(CONFIG_MAP.apiVersion, CONFIG_MAP.kind);

      const { namespace, objects, relistObjects, createConcurrency } = CONFIG.cache;
      await createNamespace(client, namespace);
      const create = async (from: number, count: number): Promise<void> => {
        const result = await createConfigMaps(client, namespace, from, count, createConcurrency);
        const perSecond = count / (result.elapsedMs / 1000);
        creates.push({ namespace, count, elapsedMs: result.elapsedMs, perSecond });
        log(
          `created ${count} ConfigMaps in ${namespace} in ${fixed(result.elapsedMs)} ms (${fixed(perSecond)}/s)`,
        );
      };

      await baselineBenchmark(client, metrics, runs);
      await create(0, objects);
      await heapBenchmarks(client, metrics, runs);
      await create(objects, relistObjects - objects);
      await relistBenchmark(client, metrics, runs);
    } finally {
      await connected?.close();
      if (cluster) {
        log('stopping the cluster');
        await cluster.stop();
      }
    }

  const finishedAt = new Date();
  writeJson(RESULT_FILE, {
    schemaVersion: 1,
    benchmark: 'runtime',
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationSeconds: (finishedAt.getTime() - startedAt.getTime()) / 1000,
    machine,
    cluster: NO_CLUSTER ? null : { nodes: 1, kubernetesVersion },
    config: CONFIG,
    setup: { configMapCreates: creates },
    metrics,
    runs,
  });
  const where = NO_CLUSTER ? 'no cluster' : `Kubernetes: ${kubernetesVersion} (local, 1 node)`;
  process.stdout.write(`\n${formatMachine(machine)}\n${where}\n\n`);
  process.stdout.write(`${formatTable(metrics)}\n\nResults written to ${RESULT_FILE}\n`);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`bench:runtime failed: ${message.split('\n')[0]}\n`);
  process.exitCode = 1;
});
