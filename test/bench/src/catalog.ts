// `nx run bench:catalog`: `opkit catalog validate` against `opm validate` on one synthetic catalog of 5,000
// bundles in 50 packages, in the same run. opkit runs as its distributable form: one esbuild bundle on Node.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadCatalog, syntheticCatalog, validateCatalog, writeCatalog } from '@opkit/olm';
import { opmBinary } from '@opkit/test-cluster';
import { build } from 'esbuild';
import { formatMachine, machineInfo } from './machine.js';
import { formatTable, type Metric, metric, writeJson } from './report.js';

const run = promisify(execFile);
const RUNS = 5;
const root = join(import.meta.dirname, '..', '..', '..');

async function time(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'opkit-bench-catalog-'));
  try {
    const opm = await opmBinary((line) => process.stderr.write(`${line}\n`));
    const cli = join(scratch, 'opkit.mjs');
    await build({
      entryPoints: [join(root, 'tools', 'opkit', 'src', 'main.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node24',
      conditions: ['@opkit/source'],
      outfile: cli,
      banner: {
        js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
      logLevel: 'error',
    });
    const dir = join(scratch, 'catalog');
    const catalog = syntheticCatalog({ packages: 50, bundlesPerPackage: 100 });
    await writeCatalog(dir, catalog);
    process.stdout.write(
      `synthetic catalog: ${catalog.packages.length} packages, ${catalog.bundles.length} bundles\n`,
    );

    const opmRuns: number[] = [];
    const opkitRuns: number[] = [];
    const inProcess: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Interleaved, so both see the same machine state.
      opmRuns.push(await time(() => run(opm, ['validate', dir], { maxBuffer: 64 << 20 })));
      opkitRuns.push(
        await time(() => run(process.execPath, [cli, 'catalog', 'validate', dir], { maxBuffer: 64 << 20 })),
      );
      inProcess.push(await time(async () => validateCatalog(await loadCatalog(dir))));
    }
    const metrics: Metric[] = [
      metric('validate', 'opm-validate', 'opm validate (5,000 bundles)', 'ms', 'lower', opmRuns),
      metric(
        'validate',
        'opkit-validate',
        'opkit catalog validate (5,000 bundles)',
        'ms',
        'lower',
        opkitRuns,
      ),
      metric('validate', 'opkit-in-process', 'load + validate in process', 'ms', 'lower', inProcess),
    ];
    const ratio = metrics[1]!.median / metrics[0]!.median;
    process.stdout.write(`\n${formatMachine(machineInfo())}\n\n${formatTable(metrics)}\n\n`);
    process.stdout.write(
      `ratio opkit/opm (median wall time): ${ratio.toFixed(2)} (below 1 = opkit faster)\n`,
    );
    const out = join(import.meta.dirname, '..', 'results', 'catalog.json');
    writeJson(out, { machine: machineInfo(), metrics, ratio: { opkitOverOpm: ratio } });
    process.stdout.write(`Results written to ${out}\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (error) {
  process.stderr.write(`bench:catalog failed: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
