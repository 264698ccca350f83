// `nx run bench:idle`: the resident memory of the Memcached operator at idle — started as it ships (its esbuild
// bundle run by Node with the image's flags), connected to an envtest API server (etcd and kube-apiserver on
// loopback, no node), caches synced, no Memcached — beside `node` doing nothing, measured in the same run.
// Optionally (`--fleet=100,1000`) the same after creating that many Memcacheds, and the slope per Memcached.
//
//   --samples=<n>             RSS samples of each process, one a second (default 7); the median is reported
//   --variant="<flags> N=V"   node flags and environment to run the operator with, instead of the image's
//                             (repeatable: each measured in turn on the same API server; `shipped` = the image's)
//   --fleet=<n>,<m>           Memcacheds to create, in steps, with the first variant (default none)
//   --baseline                the same for the Go baseline keeping our objects (as `--same-objects` runs it), after
//                             ours, in a namespace of its own: its idle RSS and its slope, in the same run
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually, KubeRest } from '@opkit/test-cluster';
import { startTestEnvironment } from '@opkit/test-cluster/envtest';
import { type Aftermath, untilQuiet } from './converge/aftermath.js';
import { memcachedBaselineBinary } from './converge/baseline-binary.js';
import {
  countObjects,
  createMemcacheds,
  createNamespaces,
  DEPLOYMENTS,
  type FleetApi,
  fleetLayout,
  installFleetCrd,
  storeFleetVersion,
} from './converge/fleet.js';
import {
  baselineOperator,
  bundleOpkitOperator,
  type OperatorCommand,
  OperatorProcess,
} from './converge/operator-process.js';
import { parseStatusKb, processUsage } from './converge/process-usage.js';
import { type IdleOptions, type IdleVariant, parseIdleOptions } from './idle-options.js';
import { kubeconfigNamingFiles } from './kubeconfig-files.js';
import { formatMachine, machineInfo } from './machine.js';
import { formatTable, type Metric, metric, writeJson } from './report.js';

const MIB = 1024 * 1024;
const NAMESPACE = 'idle-bench';
const BASELINE_NAMESPACE = 'idle-bench-baseline';
/**
 * A fleet step is sampled once the operator has made no write for this long: longer than the minute after which
 * the Go baseline looks at each new Memcached again (`RequeueAfter`), so neither is sampled mid-work.
 */
const QUIET_MS = 65_000;

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
    crdDirectoryPaths: [],
    webhookConfigPaths: [],
    useExistingCluster: false,
    onProgress: (line) => log(line),
  });
  const rest = new KubeRest(env.kubeConfig);
  await installFleetCrd(rest);
  const operatorKubeconfig = kubeconfigNamingFiles(env.kubeconfigPath, work);
  const operators: OperatorProcess[] = [];
  const converged: {
    operator: string;
    memcacheds: string;
    seconds: number;
    cpuSeconds: number;
    afterwards: Aftermath;
  }[] = [];
  try {
    await createNamespaces(rest, [NAMESPACE]);
    const bundled = await bundleOpkitOperator(work, []);
    const start = async (
      command: OperatorCommand,
      namespace: string,
      variantEnv: Readonly<Record<string, string>> = {},
    ): Promise<OperatorProcess> => {
      log(
        `operator: ${Object.entries(variantEnv)
          .map(([k, v]) => `${k}=${v} `)
          .join('')}${command.executable} ${command.args.join(' ')}`,
      );
      const operator = await OperatorProcess.start(command, {
        kubeconfigPath: operatorKubeconfig,
        namespaces: [namespace],
        image: 'docker.io/library/memcached:1.6',
        logFile: join(work, 'operator.log'),
        env: variantEnv,
      });
      operators.push(operator);
      await eventually(
        'the operator to report its caches synced (/readyz)',
        async () => (await fetch(operator.readyzUrl, { signal: AbortSignal.timeout(5_000) })).ok,
        { timeoutMs: 60_000 },
      );
      return operator;
    };
    const ours = (variant: IdleVariant): OperatorCommand => ({
      ...bundled,
      args: [...variant.nodeOptions, ...bundled.args],
    });
    for (const [i, variant] of options.variants.entries()) {
      const operator = await start(ours(variant), NAMESPACE, variant.env);
      add(
        `operator-idle-${i}`,
        `operator idle: ${variant.label}`,
        await sampleRss(operator.pid, options.samples, 3_000),
      );
      await operator.stop();
    }

    /** Creates the fleet in steps in `namespace`, and samples the operator after each. */
    const grow = async (
      operator: OperatorProcess,
      namespace: string,
      api: FleetApi,
      id: string,
      label: string,
      variantLabel?: string,
    ) => {
      let created = 0;
      for (const size of options.fleet) {
        const { members } = fleetLayout(namespace, 1, size);
        log(`${label}: creating Memcacheds ${created + 1}–${size}`);
        const before = processUsage(operator.pid);
        const started = performance.now();
        await createMemcacheds(rest, members.slice(created), 1, api);
        // Every Memcached gets its Deployment: the operator has seen it and written its objects.
        await eventually(
          `${size} Deployments`,
          async () => (await countObjects(rest, [namespace], DEPLOYMENTS)) >= size,
          { timeoutMs: 600_000 + size * 120 },
        );
        const seconds = (performance.now() - started) / 1000;
        const cpuSeconds = processUsage(operator.pid).cpuSeconds - before.cpuSeconds;
        const step = `${created + 1}–${size}`;
        const quiet = await untilQuiet(
          () => operator.writeCount(),
          performance.now(),
          await operator.writeCount(),
          { quietMs: QUIET_MS, capMs: 900_000, pollMs: 1_000 },
        );
        converged.push({ operator: label, memcacheds: step, seconds, cpuSeconds, afterwards: quiet });
        log(
          `${label}: Memcacheds ${step}: Deployments written in ${seconds.toFixed(1)} s, operator CPU ${cpuSeconds.toFixed(2)} s; ` +
            `${quiet.writes} writes more until quiet${quiet.capped ? ' (still writing at the cap)' : ''}`,
        );
        created = size;
        const title = `${label} with ${size} Memcacheds${variantLabel === undefined ? '' : `: ${variantLabel}`}`;
        add(`${id}-${size}`, title, await sampleRss(operator.pid, options.samples, 10_000));
      }
    };

    const [first] = options.variants;
    if (options.fleet.length > 0 && first !== undefined) {
      const operator = await start(ours(first), NAMESPACE, first.env);
      await grow(operator, NAMESPACE, bundled.api, 'operator', 'operator', first.label);
      await operator.stop();
    }

    if (options.baseline) {
      const baseline = baselineOperator(await memcachedBaselineBinary((line) => log(line)), {
        sameObjects: true,
      });
      // Its users write v1alpha1 (`size`); the CRD has no conversion, so that becomes the storage version.
      await storeFleetVersion(rest, baseline.api);
      await createNamespaces(rest, [BASELINE_NAMESPACE]);
      const operator = await start(baseline, BASELINE_NAMESPACE);
      add('baseline-idle', 'Go baseline idle', await sampleRss(operator.pid, options.samples, 3_000));
      if (options.fleet.length > 0)
        await grow(operator, BASELINE_NAMESPACE, baseline.api, 'baseline', 'Go baseline');
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
    const [first, last] = [options.fleet[0], options.fleet.at(-1)];
    /** KiB of RSS per Memcached between the first and the last fleet step. */
    const slope = (id: string) =>
      first !== undefined && last !== undefined && last > first
        ? ((median(`${id}-${last}`) - median(`${id}-${first}`)) * 1024) / (last - first)
        : undefined;
    const perMemcachedKib = slope('operator');
    const baselinePerMemcachedKib = options.baseline ? slope('baseline') : undefined;
    const ratio = {
      operatorIdleOverNodeFloor: median('operator-idle-0') / median('node-floor'),
      ...(options.baseline
        ? { operatorIdleOverBaseline: median('operator-idle-0') / median('baseline-idle') }
        : {}),
      ...(perMemcachedKib !== undefined && baselinePerMemcachedKib !== undefined
        ? { perMemcachedOursOverBaseline: perMemcachedKib / baselinePerMemcachedKib }
        : {}),
    };
    process.stdout.write(`\n${formatMachine(machine)}\n\n${formatTable(metrics)}\n\n`);
    process.stdout.write(
      `operator idle (${options.variants[0]?.label}): ${median('operator-idle-0').toFixed(1)} MiB, ${ratio.operatorIdleOverNodeFloor.toFixed(2)}× an idle node` +
        `${perMemcachedKib === undefined ? '' : `; ${perMemcachedKib.toFixed(1)} KiB per Memcached (${first}→${last})`}\n`,
    );
    if (options.baseline) {
      process.stdout.write(
        `Go baseline idle: ${median('baseline-idle').toFixed(1)} MiB (ours / Go ${ratio.operatorIdleOverBaseline?.toFixed(2)})` +
          `${baselinePerMemcachedKib === undefined ? '' : `; ${baselinePerMemcachedKib.toFixed(1)} KiB per Memcached (ours / Go ${ratio.perMemcachedOursOverBaseline?.toFixed(2)})`}\n`,
      );
    }
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
      baselinePerMemcachedKib,
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
