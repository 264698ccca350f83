// `nx run bench:catalog`: `opkit catalog render` (JSON and YAML), `validate` and `serve` start-up against opm's, on
// two catalogs in the same run: 5,000 small bundles in 50 packages, and a catalog shaped like the community
// catalogs users install from (a few dozen packages whose bundles carry their CSV and CRDs inline, about 18 MB).
// opkit runs as users run it: `tools/opkit/bin/opkit.js`, which loads the CLI's build (`nx run opkit:build`).
// `--runs=<n>` (default 5) sets the number of runs of each; `--catalog=synthetic` or `--catalog=community` races
// on that catalog only.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { loadCatalog, syntheticCatalog, validateCatalog, writeCatalog } from '@opkit/olm';
import { opkitScript, opmBinary, opmServeArgs } from '@opkit/test-cluster';
import { communityCatalog } from './catalog/community-catalog.js';
import { freePort, timeServeStartup } from './catalog/serve-startup.js';
import { formatMachine, machineInfo } from './machine.js';
import { formatTable, type Metric, metric, writeJson } from './report.js';

const run = promisify(execFile);
const args = process.argv.slice(2);
const option = (name: string): string | undefined =>
  args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const RUNS = Number(option('runs') ?? 5);
const CATALOGS = ['synthetic', 'community'] as const;
type CatalogId = (typeof CATALOGS)[number];
const only = option('catalog');
const raced = (id: CatalogId): boolean => only === undefined || only === id;
const opkitBin = opkitScript();

async function time(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** A catalog to race on: where it is written and how it is described in the table. */
interface Contender {
  readonly id: string;
  readonly title: string;
  readonly dir: string;
}

/** The figures of one catalog and the ratios opkit / opm of their medians (below 1: opkit is faster). */
interface Race {
  readonly metrics: Metric[];
  readonly ratios: Record<string, number>;
}

async function race(c: Contender, opm: string, scratch: string): Promise<Race> {
  const opkit = (args: readonly string[]) =>
    run(process.execPath, [opkitBin, ...args], { maxBuffer: 1 << 30 });
  const series = new Map<string, number[]>();
  const record = (name: string, ms: number) => {
    series.set(name, [...(series.get(name) ?? []), ms]);
  };
  const log = (line: string) => process.stderr.write(`${c.id}: ${line}\n`);

  log(`validate, ${RUNS} runs`);
  for (let i = 0; i < RUNS; i++) {
    // Interleaved, so both see the same machine state.
    record('opm-validate', await time(() => run(opm, ['validate', c.dir], { maxBuffer: 64 << 20 })));
    record('opkit-validate', await time(() => opkit(['catalog', 'validate', c.dir])));
    record('opkit-in-process', await time(async () => validateCatalog(await loadCatalog(c.dir))));
  }
  for (const format of ['json', 'yaml'] as const) {
    // The whole catalog to stdout. The outputs must be the same bytes, or the race is void.
    log(`render -o ${format}, ${RUNS} runs`);
    const args = ['render', c.dir, '-o', format];
    for (let i = 0; i < RUNS; i++) {
      let opmOut = '';
      let opkitOut = '';
      record(
        `opm-render-${format}`,
        await time(async () => {
          opmOut = (await run(opm, args, { maxBuffer: 1 << 30 })).stdout;
        }),
      );
      record(
        `opkit-render-${format}`,
        await time(async () => {
          opkitOut = (await opkit(['catalog', ...args])).stdout;
        }),
      );
      if (opmOut !== opkitOut) {
        throw new Error(
          `${c.id}: opkit catalog render -o ${format} and opm render printed different catalogs`,
        );
      }
    }
  }
  // opm serve builds its cache in a fresh temp dir at every start unless it is given a pre-built one, as opm's
  // catalog images are (`opm serve --cache-only` at image build time); both are measured.
  log(`serve start-up, ${RUNS} runs`);
  const cacheDir = join(scratch, `${c.id}-opm-cache`);
  await run(opm, opmServeArgs(c.dir, { cacheDir, cacheOnly: true }), { maxBuffer: 64 << 20 });
  const opkitCacheDir = join(scratch, `${c.id}-opkit-cache`);
  await opkit(['catalog', 'serve', c.dir, '--cache-dir', opkitCacheDir, '--cache-only']);
  const opkitServeArgs = (port: number, extra: string[] = []): string[] => [
    opkitBin,
    'catalog',
    'serve',
    c.dir,
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    ...extra,
  ];
  const terminationLog = join(scratch, 'opm-termination.log');
  for (let i = 0; i < RUNS; i++) {
    let port = await freePort();
    record(
      'opm-serve-startup',
      await timeServeStartup(opm, opmServeArgs(c.dir, { port, terminationLog }), port),
    );
    port = await freePort();
    record(
      'opm-serve-startup-cached',
      await timeServeStartup(opm, opmServeArgs(c.dir, { port, cacheDir, terminationLog }), port),
    );
    port = await freePort();
    record('opkit-serve-startup', await timeServeStartup(process.execPath, opkitServeArgs(port), port));
    port = await freePort();
    record(
      'opkit-serve-startup-cached',
      await timeServeStartup(process.execPath, opkitServeArgs(port, ['--cache-dir', opkitCacheDir]), port),
    );
  }

  const rows: [experiment: string, id: string, title: string][] = [
    ['validate', 'opm-validate', 'opm validate'],
    ['validate', 'opkit-validate', 'opkit catalog validate'],
    ['validate', 'opkit-in-process', 'opkit load + validate in process'],
    ['render', 'opm-render-json', 'opm render -o json'],
    ['render', 'opkit-render-json', 'opkit catalog render -o json'],
    ['render', 'opm-render-yaml', 'opm render -o yaml'],
    ['render', 'opkit-render-yaml', 'opkit catalog render -o yaml'],
    ['serve', 'opm-serve-startup', 'opm serve start-up'],
    ['serve', 'opm-serve-startup-cached', 'opm serve start-up, pre-built cache'],
    ['serve', 'opkit-serve-startup', 'opkit catalog serve start-up'],
    ['serve', 'opkit-serve-startup-cached', 'opkit catalog serve start-up, pre-built cache'],
  ];
  const metrics = rows.map(([experiment, id, title]) =>
    metric(`${c.id}.${experiment}`, `${c.id}.${id}`, `${title} (${c.title})`, 'ms', 'lower', series.get(id)!),
  );
  const median = (id: string): number => metrics.find((m) => m.id === `${c.id}.${id}`)!.median;
  return {
    metrics,
    ratios: {
      validate: median('opkit-validate') / median('opm-validate'),
      renderJson: median('opkit-render-json') / median('opm-render-json'),
      renderYaml: median('opkit-render-yaml') / median('opm-render-yaml'),
      serveStartup: median('opkit-serve-startup') / median('opm-serve-startup'),
      serveStartupOverCached: median('opkit-serve-startup') / median('opm-serve-startup-cached'),
      serveStartupCached: median('opkit-serve-startup-cached') / median('opm-serve-startup-cached'),
    },
  };
}

async function main(): Promise<void> {
  if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`--runs takes a positive integer, not ${RUNS}`);
  if (only !== undefined && !(CATALOGS as readonly string[]).includes(only)) {
    throw new Error(`--catalog takes ${CATALOGS.join(' or ')}, not ${only}`);
  }
  // The bin runs the package's build (`dist/main.js` beside `bin/`).
  if (!existsSync(join(dirname(opkitBin), '..', 'dist', 'main.js'))) {
    throw new Error('the CLI has no build: run `npx nx run opkit:build` (the Nx target does it first)');
  }
  const scratch = mkdtempSync(join(tmpdir(), 'opkit-bench-catalog-'));
  try {
    const opm = await opmBinary((line) => process.stderr.write(`${line}\n`));
    const synthetic: Contender = { id: 'synthetic', title: '5,000 bundles', dir: join(scratch, 'synthetic') };
    const catalog = syntheticCatalog({ packages: 50, bundlesPerPackage: 100 });
    await writeCatalog(synthetic.dir, catalog);
    const community: Contender = {
      id: 'community',
      title: 'community-shaped',
      dir: join(scratch, 'community'),
    };
    const shaped = communityCatalog();
    let bytes = 0;
    for (const [path, content] of shaped.files) {
      mkdirSync(dirname(join(community.dir, path)), { recursive: true });
      writeFileSync(join(community.dir, path), content);
      bytes += Buffer.byteLength(content);
    }
    const catalogs = {
      synthetic: { packages: catalog.packages.length, bundles: catalog.bundles.length },
      community: {
        packages: shaped.catalog.packages.length,
        bundles: shaped.catalog.bundles.length,
        files: shaped.files.size,
        yamlFiles: [...shaped.files.keys()].filter((p) => p.endsWith('.yaml')).length,
        megabytes: bytes / 1e6,
      },
    };
    process.stdout.write(
      `synthetic catalog: ${catalogs.synthetic.packages} packages, ${catalogs.synthetic.bundles} bundles\n` +
        `community-shaped catalog: ${catalogs.community.packages} packages, ${catalogs.community.bundles} bundles with inline objects, ` +
        `${catalogs.community.files} files (${catalogs.community.yamlFiles} YAML), ${catalogs.community.megabytes.toFixed(1)} MB\n`,
    );
    const machine = machineInfo();
    const races: Partial<Record<CatalogId, Race>> = {};
    if (raced('synthetic')) races.synthetic = await race(synthetic, opm, scratch);
    if (raced('community')) races.community = await race(community, opm, scratch);
    const metrics = Object.values(races).flatMap((r) => r.metrics);
    process.stdout.write(`\n${formatMachine(machine)}\n\n${formatTable(metrics)}\n\n`);
    process.stdout.write('ratios opkit / opm of median wall time (below 1 = opkit faster):\n');
    for (const [id, r] of Object.entries(races)) {
      const f = (n: number) => n.toFixed(2);
      process.stdout.write(
        `  ${id}: validate ${f(r.ratios.validate!)}, render json ${f(r.ratios.renderJson!)}, render yaml ${f(r.ratios.renderYaml!)}, ` +
          `serve start-up ${f(r.ratios.serveStartup!)}, both with their caches ${f(r.ratios.serveStartupCached!)}\n`,
      );
    }
    const out = join(import.meta.dirname, '..', 'results', 'catalog.json');
    writeJson(out, {
      schemaVersion: 2,
      benchmark: 'catalog',
      machine,
      catalogs,
      metrics,
      runs: RUNS,
      ratios: Object.fromEntries(Object.entries(races).map(([id, r]) => [id, r.ratios])),
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
