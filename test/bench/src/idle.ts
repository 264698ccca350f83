// `nx run bench:idle`: the resident memory of the Memcached operator at idle — started as it ships (its esbuild
// bundle run by Node with the image's flags), connected to an envtest API server (etcd and kube-apiserver on
// loopback, no node), caches synced, no Memcached — beside `node` doing nothing, measured in the same run.
// Optionally (`--fleet=100,1000`) the same after creating that many Memcacheds, and the slope per Memcached.
//
//   --samples=<n>          RSS samples of each process, one a second (default 7); the median is reported
//   --node-options="<f…>"  node flags for the operator instead of OPERATOR_NODE_OPTIONS (to try others)
//   --env=NAME=VALUE       more environment for the operator (repeatable), e.g. MALLOC_ARENA_MAX=2
//   --fleet=<n>,<m>        Memcacheds to create, in steps, after the idle figure (default none)
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeRest } from '@opkit/test-cluster';
import { startTestEnvironment } from '@opkit/test-cluster/envtest';
import {
  countObjects,
  createMemcacheds,
  createNamespaces,
  DEPLOYMENTS,
  fleetLayout,
  OPKIT_API,
} from './converge/fleet.js';
import { bundleOpkitOperator, OperatorProcess } from './converge/operator-process.js';
import { parseStatusKb } from './converge/process-usage.js';
import { type IdleOptions, parseIdleOptions } from './idle-options.js';
import { formatMachine, machineInfo } from './machine.js';
import { formatTable, type Metric, metric, writeJson } from './report.js';

const MIB = 1024 * 1024;
const NAMESPACE = 'idle-bench';
const memcachedDir = join(import.meta.dirname, '..', '..', '..', 'operators', 'memcached');

function log(line: string): void {
  process.stderr.write(`[idle] ${line}\n`);
}

/** One reading of `/proc/<pid>/status`: resident memory, and its file-backed and anonymous parts, in bytes. */
interface RssSample {
  readonly rss: number;
  readonly file: number;
  readonly anon: number;
}

function rssOf(pid: number): RssSample {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    rss: parseStatusKb(status, 'VmRSS'),
    file: parseStatusKb(status, 'RssFile'),
    anon: parseStatusKb(status, 'RssAnon'),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `count` samples one second apart, after `settleMs`. */
async function sampleRss(pid: number, count: number, settleMs: number): Promise<RssSample[]> {
  await sleep(settleMs);
  const samples: RssSample[] = [];
  for (let i = 0; i < count; i++) {
    if (i > 0) await sleep(1_000);
    samples.push(rssOf(pid));
  }
  return samples;
}

/** `node` with nothing to do but wait (a timer keeps it alive), from the same executable as the operator. */
async function bareNodeRss(count: number): Promise<RssSample[]> {
  const child: ChildProcess = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], {
    stdio: 'ignore',
  });
  try {
    return await sampleRss(child.pid ?? 0, count, 1_000);
  } finally {
    child.kill('SIGKILL');
  }
}

async function waitUntil(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

const summary = (label: string, samples: readonly RssSample[]) => {
  const median = (pick: (s: RssSample) => number) =>
    [...samples.map(pick)].sort((a, b) => a - b)[samples.length >> 1]! / MIB;
  return `${label}: RSS ${median((s) => s.rss).toFixed(1)} MiB (file ${median((s) => s.file).toFixed(1)}, anon ${median((s) => s.anon).toFixed(1)})`;
};

async function measure(options: IdleOptions, work: string): Promise<{ metrics: Metric[]; runs: object }> {
  const metrics: Metric[] = [];
  const runs: Record<string, RssSample[]> = {};
  const add = (id: string, title: string, samples: RssSample[]) => {
    runs[id] = samples;
    metrics.push(
      metric(
        id,
        `${id}.rss`,
        title,
        'MiB',
        'lower',
        samples.map((s) => s.rss / MIB),
      ),
    );
    log(summary(title, samples));
  };

  add('node-floor', "node -e '' (idle)", await bareNodeRss(options.samples));

  log('starting the envtest API server');
  const env = await startTestEnvironment({
    crdDirectoryPaths: [join(memcachedDir, 'config', 'crd', 'bases')],
    webhookConfigPaths: [],
    useExistingCluster: false,
    onProgress: (line) => log(line),
  });
  const rest = new KubeRest(env.kubeConfig);
  let operator: OperatorProcess | undefined;
  try {
    await createNamespaces(rest, [NAMESPACE]);
    const command = await bundleOpkitOperator(work, options.nodeOptions);
    log(`operator: node ${command.args.join(' ')}`);
    operator = await OperatorProcess.start(command, {
      kubeconfigPath: env.kubeconfigPath,
      namespaces: [NAMESPACE],
      image: 'docker.io/library/memcached:1.6',
      logFile: join(work, 'operator.log'),
      env: options.env,
    });
    const readyz = operator.readyzUrl;
    await waitUntil('the operator reports its caches synced (/readyz)', 60_000, async () => {
      const response = await fetch(readyz, { signal: AbortSignal.timeout(5_000) });
      return response.ok;
    });
    add(
      'operator-idle',
      'operator idle, caches synced',
      await sampleRss(operator.pid, options.samples, 3_000),
    );

    let created = 0;
    for (const size of options.fleet) {
      const { members } = fleetLayout(NAMESPACE, 1, size);
      log(`creating Memcacheds ${created + 1}–${size}`);
      await createMemcacheds(rest, members.slice(created), 1, OPKIT_API);
      created = size;
      // Every Memcached gets its Deployment: the operator has seen it and written its objects.
      await waitUntil(`${size} Deployments`, 600_000, async () => {
        return (await countObjects(rest, [NAMESPACE], DEPLOYMENTS)) >= size;
      });
      add(
        `operator-${size}`,
        `operator with ${size} Memcacheds`,
        await sampleRss(operator.pid, options.samples, 10_000),
      );
    }
  } finally {
    await operator?.stop();
    rest.close();
    await env.stop();
  }
  return { metrics, runs };
}

async function main(): Promise<void> {
  const options = parseIdleOptions(process.argv.slice(2));
  const machine = machineInfo();
  const work = mkdtempSync(join(tmpdir(), 'opkit-idle-'));
  try {
    const { metrics, runs } = await measure(options, work);
    const median = (id: string) => metrics.find((m) => m.id === `${id}.rss`)?.median ?? Number.NaN;
    const ratio = { operatorIdleOverNodeFloor: median('operator-idle') / median('node-floor') };
    const [first, last] = [options.fleet[0], options.fleet.at(-1)];
    const perMemcachedKib =
      first !== undefined && last !== undefined && last > first
        ? ((median(`operator-${last}`) - median(`operator-${first}`)) * 1024) / (last - first)
        : undefined;
    process.stdout.write(`\n${formatMachine(machine)}\n\n${formatTable(metrics)}\n\n`);
    process.stdout.write(
      `operator idle: ${median('operator-idle').toFixed(1)} MiB, ${ratio.operatorIdleOverNodeFloor.toFixed(2)}× an idle node` +
        `${perMemcachedKib === undefined ? '' : `; ${perMemcachedKib.toFixed(1)} KiB per Memcached (${first}→${last})`}\n`,
    );
    const out = join(import.meta.dirname, '..', 'results', 'idle.json');
    writeJson(out, {
      machine,
      nodeOptions: options.nodeOptions,
      env: options.env,
      samples: options.samples,
      metrics,
      runs,
      ratio,
      perMemcachedKib,
    });
    process.stdout.write(`Results written to ${out}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (error) {
  process.stderr.write(`bench:idle failed: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
