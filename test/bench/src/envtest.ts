// `nx run bench:envtest`: what the envtest tier saves against the real-node tier, both measured in the same run
// on the same machine. (a) `startTestEnvironment()` until its API server is ready, (b) the Memcached
// operator's envtest suite (`vitest run --project envtest`), and with `--real-node` (root, one real node per
// machine) also (c) `startCluster()` with its real node until it is ready and (d) the operator's e2e suite;
// then the ratios (c)/(a) and (d)/(b). `--runs=<n>` (default 5) sets the runs of each start-up, `--suite-runs=<n>`
// (default 1) those of each suite. `OPKIT_BENCH_REAL_NODE=true` is the same as `--real-node`.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { startCluster } from '@opkit/test-cluster';
import { startTestEnvironment } from '@opkit/test-cluster/envtest';
import { parseEnvtestBenchOptions } from './envtest-options.js';
import { formatMachine, machineInfo } from './machine.js';
import { formatTable, type Metric, metric, writeJson } from './report.js';

const memcachedDir = join(import.meta.dirname, '..', '..', '..', 'operators', 'memcached');

const seconds = (startedNs: bigint) => Number(process.hrtime.bigint() - startedNs) / 1e9;

/** (a): start to a ready API server (with no CRDs to install), then stop (not timed). */
async function envtestStart(): Promise<number> {
  const started = process.hrtime.bigint();
  const env = await startTestEnvironment({
    crdDirectoryPaths: [],
    webhookConfigPaths: [],
    useExistingCluster: false,
  });
  const elapsed = seconds(started);
  await env.stop();
  return elapsed;
}

/** (c): start to a ready cluster with its real node, then stop (not timed). */
async function realNodeStart(): Promise<number> {
  const started = process.hrtime.bigint();
  const cluster = await startCluster({ realNode: true });
  const elapsed = seconds(started);
  await cluster.stop();
  return elapsed;
}

/** (b) and (d): one vitest project of the Memcached operator, process start to exit; a failed suite fails the run. */
function suite(project: 'envtest' | 'e2e'): Promise<number> {
  const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [vitest, 'run', '--project', project], {
      cwd: memcachedDir,
      env: { ...process.env, OPKIT_USE_EXISTING_CLUSTER: '', OPKIT_TEST_KUBECONFIG: '' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(seconds(started));
      else reject(new Error(`memcached's ${project} suite exited with ${code}`));
    });
  });
}

async function repeat(times: number, what: string, run: () => Promise<number>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    samples.push(await run());
    process.stderr.write(`${what}: run ${i + 1}/${times}: ${samples.at(-1)?.toFixed(1)} s\n`);
  }
  return samples;
}

async function main(): Promise<void> {
  const options = parseEnvtestBenchOptions(process.argv.slice(2));
  const machine = machineInfo();
  await envtestStart(); // warm the file system cache; not counted
  const metrics: Metric[] = [
    metric(
      'envtest',
      'envtest-start',
      '(a) envtest start to a ready API server',
      's',
      'lower',
      await repeat(options.runs, '(a)', envtestStart),
    ),
    metric(
      'envtest',
      'envtest-suite',
      '(b) memcached envtest suite',
      's',
      'lower',
      await repeat(options.suiteRuns, '(b)', () => suite('envtest')),
    ),
  ];
  if (options.realNode) {
    metrics.push(
      metric(
        'envtest',
        'real-node-start',
        '(c) real-node cluster start to ready',
        's',
        'lower',
        await repeat(options.runs, '(c)', realNodeStart),
      ),
      metric(
        'envtest',
        'e2e-suite',
        '(d) memcached e2e suite',
        's',
        'lower',
        await repeat(options.suiteRuns, '(d)', () => suite('e2e')),
      ),
    );
  }
  const median = (id: string) => metrics.find((m) => m.id === id)?.median;
  const ratio = (over: string, under: string) => {
    const [a, b] = [median(over), median(under)];
    return a !== undefined && b !== undefined ? a / b : undefined;
  };
  const ratios = {
    realNodeStartOverEnvtestStart: ratio('real-node-start', 'envtest-start'),
    e2eSuiteOverEnvtestSuite: ratio('e2e-suite', 'envtest-suite'),
  };
  process.stdout.write(`\n${formatMachine(machine)}\n\n${formatTable(metrics)}\n\n`);
  if (ratios.realNodeStartOverEnvtestStart !== undefined && ratios.e2eSuiteOverEnvtestSuite !== undefined) {
    process.stdout.write(
      `real-node start ${ratios.realNodeStartOverEnvtestStart.toFixed(1)}× envtest start (c/a); ` +
        `e2e suite ${ratios.e2eSuiteOverEnvtestSuite.toFixed(1)}× envtest suite (d/b)\n`,
    );
  } else {
    process.stdout.write('(c) and (d) not run: pass --real-node (needs root) for the ratios\n');
  }
  const out = join(import.meta.dirname, '..', 'results', 'envtest.json');
  writeJson(out, { machine, options, metrics, ratios });
  process.stdout.write(`Results written to ${out}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:envtest failed: ${(error as Error).message}\n`);
  process.exitCode = 1;
});
