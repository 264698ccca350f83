// `nx run bench:idle`: the resident memory of the Memcached operator at idle — started as it ships (its esbuild
// bundle run by Node with the image's flags), connected to an envtest API server (etcd and kube-apiserver on
// loopback, no node), caches synced, no Memcached — beside `node` doing nothing, measured in the same run.
// Optionally (`--fleet=100,1000`) the same after creating that many Memcacheds, and the slope per Memcached.
//
//   --samples=<n>             RSS samples of each process, one a second (default 7); the median is reported
//   --variant="<flags> N=V"   node flags and environment to run the operator with, instead of the image's
//                             (repeatable: each measured in turn on the same API server; `shipped` = the image's)
//   --fleet=<n>,<m>           Memcacheds to create, in steps, with the first variant (default none)
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually, KubeRest } from '@opkit/test-cluster';
import { startTestEnvironment } from '@opkit/test-cluster/envtest';
import { type Aftermath, untilQuiet } from './converge/aftermath.js';
import {
  countObjects,
  createMemcacheds,
  createNamespaces,
  DEPLOYMENTS,
  fleetLayout,
  OPKIT_API,
} from './converge/fleet.js';
import { bundleOpkitOperator, OperatorProcess } from './converge/operator-process.js';
import { parseStatusKb, processUsage } from './converge/process-usage.js';
import { type IdleOptions, type IdleVariant, parseIdleOptions } from './idle-options.js';
import { formatMachine, machineInfo } from './machine.js';
import { formatTable, type Metric, metric, writeJson } from './report.js';

const MIB = 1024 * 1024;
const NAMESPACE = 'idle-bench';
/**
 * A fleet step is sampled once the operator has made no write for this long, so it is not sampled mid-work
 * (a Memcached's status comes after its Deployment).
 */
const QUIET_MS = 65_000;
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
  const operators: OperatorProcess[] = [];
  const converged: { memcacheds: string; seconds: number; cpuSeconds: number; afterwards: Aftermath }[] = [];
  try {
    await createNamespaces(rest, [NAMESPACE]);
    const bundled = await bundleOpkitOperator(work, []);
    const start = async (variant: IdleVariant): Promise<OperatorProcess> => {
      const command = { ...bundled, args: [...variant.nodeOptions, ...bundled.args] };
      log(
        `operator: ${Object.entries(variant.env)
          .map(([k, v]) => `${k}=${v} `)
          .join('')}node ${command.args.join(' ')}`,
      );
      const operator = await OperatorProcess.start(command, {
        kubeconfigPath: env.kubeconfigPath,
        namespaces: [NAMESPACE],
        image: 'docker.io/library/memcached:1.6',
        logFile: join(work, 'operator.log'),
        env: variant.env,
      });
      operators.push(operator);
      await eventually(
        'the operator to report its caches synced (/readyz)',
        async () => (await fetch(operator.readyzUrl, { signal: AbortSignal.timeout(5_000) })).ok,
        { timeoutMs: 60_000 },
      );
      return operator;
    };
    for (const [i, variant] of options.variants.entries()) {
      const operator = await start(variant);
      add(
        `operator-idle-${i}`,
        `operator idle: ${variant.label}`,
        await sampleRss(operator.pid, options.samples, 3_000),
      );
      await operator.stop();
    }

    const [first] = options.variants;
    if (options.fleet.length > 0 && first !== undefined) {
      const operator = await start(first);
      let created = 0;
      for (const size of options.fleet) {
        const { members } = fleetLayout(NAMESPACE, 1, size);
        log(`creating Memcacheds ${created + 1}–${size}`);
        const before = processUsage(operator.pid);
        const started = performance.now();
        await createMemcacheds(rest, members.slice(created), 1, OPKIT_API);
        // Every Memcached gets its Deployment: the operator has seen it and written its objects.
        await eventually(
          `${size} Deployments`,
          async () => (await countObjects(rest, [NAMESPACE], DEPLOYMENTS)) >= size,
          { timeoutMs: 600_000 + size * 120 },
        );
        const seconds = (performance.now() - started) / 1000;
        const cpuSeconds = processUsage(operator.pid).cpuSeconds - before.cpuSeconds;
        const step = `${created + 1}–${size}`;
        const afterwards = await untilQuiet(
          () => operator.writeCount(),
          performance.now(),
          await operator.writeCount(),
          {
            quietMs: QUIET_MS,
            capMs: 900_000,
            pollMs: 1_000,
          },
        );
        converged.push({ memcacheds: step, seconds, cpuSeconds, afterwards });
        log(
          `Memcacheds ${step}: Deployments written in ${seconds.toFixed(1)} s, operator CPU ${cpuSeconds.toFixed(2)} s; ` +
            `${afterwards.writes} writes more until quiet${afterwards.capped ? ' (still writing at the cap)' : ''}`,
        );
        created = size;
        add(
          `operator-${size}`,
          `operator with ${size} Memcacheds: ${first.label}`,
          await sampleRss(operator.pid, options.samples, 10_000),
        );
      }
    }
  } finally {
    for (const operator of operators) await operator.stop();
    rest.close();
    await env.stop();
  }
  return { metrics, runs: { ...runs, converged } };
}

async function main(): Promise<void> {
  const options = parseIdleOptions(process.argv.slice(2));
  const machine = machineInfo();
  const work = mkdtempSync(join(tmpdir(), 'opkit-idle-'));
  try {
    const { metrics, runs } = await measure(options, work);
    const median = (id: string) => metrics.find((m) => m.id === `${id}.rss`)?.median ?? Number.NaN;
    const ratio = { operatorIdleOverNodeFloor: median('operator-idle-0') / median('node-floor') };
    const [first, last] = [options.fleet[0], options.fleet.at(-1)];
    const perMemcachedKib =
      first !== undefined && last !== undefined && last > first
        ? ((median(`operator-${last}`) - median(`operator-${first}`)) * 1024) / (last - first)
        : undefined;
    process.stdout.write(`\n${formatMachine(machine)}\n\n${formatTable(metrics)}\n\n`);
    process.stdout.write(
      `operator idle (${options.variants[0]?.label}): ${median('operator-idle-0').toFixed(1)} MiB, ${ratio.operatorIdleOverNodeFloor.toFixed(2)}× an idle node` +
        `${perMemcachedKib === undefined ? '' : `; ${perMemcachedKib.toFixed(1)} KiB per Memcached (${first}→${last})`}\n`,
    );
    const out = join(import.meta.dirname, '..', 'results', 'idle.json');
    writeJson(out, {
      machine,
      variants: options.variants,
      fleet: options.fleet,
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
