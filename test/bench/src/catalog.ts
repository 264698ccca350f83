// `nx run bench:catalog`: `opkit catalog render` against `opm render`, `opkit catalog validate` against
// `opm validate`, and `opkit catalog serve` against
// `opm serve` start-up (process start until the gRPC health check answers SERVING), on one synthetic catalog of
// 5,000 bundles in 50 packages, in the same run. opkit runs as its distributable form: one esbuild bundle on Node.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadCatalog, syntheticCatalog, validateCatalog, writeCatalog } from '@opkit/olm';
import { opmBinary } from '@opkit/test-cluster';
import { build } from 'esbuild';
import { freePort, timeServeStartup } from './catalog/serve-startup.js';
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
    // Render: the whole catalog to stdout as JSON. The outputs must be the same bytes, or the race is void.
    const renderArgs = ['render', dir, '-o', 'json'];
    const opmRender: number[] = [];
    const opkitRender: number[] = [];
    let rendered: { opm: string; opkit: string } | undefined;
    for (let i = 0; i < RUNS; i++) {
      let opmOut = '';
      let opkitOut = '';
      opmRender.push(
        await time(async () => {
          opmOut = (await run(opm, renderArgs, { maxBuffer: 1 << 30 })).stdout;
        }),
      );
      opkitRender.push(
        await time(async () => {
          opkitOut = (await run(process.execPath, [cli, 'catalog', ...renderArgs], { maxBuffer: 1 << 30 }))
            .stdout;
        }),
      );
      rendered ??= { opm: opmOut, opkit: opkitOut };
    }
    if (rendered && rendered.opm !== rendered.opkit) {
      throw new Error('opkit catalog render and opm render printed different catalogs');
    }
    // opm serve builds its cache in a fresh temp dir at every start unless it is given a pre-built one, as
    // opm's catalog images are (`opm serve --cache-only` at image build time); both are measured.
    const cacheDir = join(scratch, 'opm-cache');
    await run(opm, ['serve', dir, '--cache-dir', cacheDir, '--cache-only'], { maxBuffer: 64 << 20 });
    const opmServe: number[] = [];
    const opmServeCached: number[] = [];
    const opkitServe: number[] = [];
    const opmServeArgs = (port: number, extra: string[] = []): string[] => [
      'serve',
      dir,
      '-p',
      String(port),
      '--pprof-addr',
      '127.0.0.1:0',
      '-t',
      join(scratch, 'opm-termination.log'),
      ...extra,
    ];
    for (let i = 0; i < RUNS; i++) {
      let port = await freePort();
      opmServe.push(await timeServeStartup(opm, opmServeArgs(port), port));
      port = await freePort();
      opmServeCached.push(await timeServeStartup(opm, opmServeArgs(port, ['--cache-dir', cacheDir]), port));
      port = await freePort();
      opkitServe.push(
        await timeServeStartup(
          process.execPath,
          [cli, 'catalog', 'serve', dir, '--port', String(port), '--host', '127.0.0.1'],
          port,
        ),
      );
    }
    const metrics: Metric[] = [
      metric('render', 'opm-render', 'opm render -o json (5,000 bundles)', 'ms', 'lower', opmRender),
      metric('render', 'opkit-render', 'opkit catalog render -o json', 'ms', 'lower', opkitRender),
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
      metric('serve', 'opm-serve-startup', 'opm serve start-up (5,000 bundles)', 'ms', 'lower', opmServe),
      metric(
        'serve',
        'opm-serve-startup-cached',
        'opm serve start-up, pre-built cache',
        'ms',
        'lower',
        opmServeCached,
      ),
      metric('serve', 'opkit-serve-startup', 'opkit catalog serve start-up', 'ms', 'lower', opkitServe),
    ];
    const median = (id: string): number => metrics.find((m) => m.id === id)!.median;
    const renderRatio = median('opkit-render') / median('opm-render');
    const ratio = median('opkit-validate') / median('opm-validate');
    const serveRatio = median('opkit-serve-startup') / median('opm-serve-startup');
    process.stdout.write(`\n${formatMachine(machineInfo())}\n\n${formatTable(metrics)}\n\n`);
    process.stdout.write(
      `ratio opkit/opm (median wall time): render ${renderRatio.toFixed(2)}, validate ${ratio.toFixed(2)}, serve start-up ${serveRatio.toFixed(2)} (below 1 = opkit faster)\n`,
    );
    const out = join(import.meta.dirname, '..', 'results', 'catalog.json');
    writeJson(out, {
      machine: machineInfo(),
      metrics,
      ratio: { renderOpkitOverOpm: renderRatio, opkitOverOpm: ratio, serveStartupOpkitOverOpm: serveRatio },
    });
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
