// `nx run bench:catalog`: `opkit catalog render` (JSON and YAML), `validate` and `serve` start-up against opm's,
// wall time and memory, in the same run, on two synthetic catalogs (5,000 small bundles in 50 packages, and one
// shaped like the community catalogs) and, when given, on real ones: the community catalogs of OpenShift 4.12 to
// 4.16 (`--real-catalogs=<dir or git dir>` or OPKIT_BENCH_REAL_CATALOGS; see real-catalogs.ts).
// opkit runs as users run it: `tools/opkit/bin/opkit.js`, which loads the CLI's build (`nx run opkit:build`).
// `--runs=<n>` (default 5) sets the number of runs of each; `--catalog=<id>[,<id>…]` races on those catalogs only
// (`synthetic`, `community`, or a real one: `v4.12` …); `--real-versions=v4.12,v4.16` picks real catalogs.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { loadCatalog, syntheticCatalog, validateCatalog, writeCatalog } from '@opkit/olm';
import { opkitScript, opmBinary, opmServeArgs } from '@opkit/test-cluster';
import { communityCatalog } from './catalog/community-catalog.js';
import { measuredRun } from './catalog/measured-run.js';
import {
  DEFAULT_REAL_VERSIONS,
  REAL_CATALOGS_ENV,
  REAL_CATALOGS_HELP,
  type RealCatalog,
  realCatalogs,
} from './catalog/real-catalogs.js';
import { freePort, type ServeStartup, timeServeStartup } from './catalog/serve-startup.js';
import { formatMachine, machineInfo } from './machine.js';
import { formatTable, type Metric, metric, writeJson } from './report.js';

const run = promisify(execFile);
const args = process.argv.slice(2);
const option = (name: string): string | undefined =>
  args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const RUNS = Number(option('runs') ?? 5);
const only = option('catalog')?.split(',');
const raced = (id: string): boolean => only === undefined || only.includes(id);
const realSource = option('real-catalogs') ?? process.env[REAL_CATALOGS_ENV];
const realVersions = option('real-versions')?.split(',') ?? DEFAULT_REAL_VERSIONS;
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

/** The figures of one catalog and the ratios opkit / opm of their medians (below 1: opkit is better). */
interface Race {
  readonly metrics: Metric[];
  readonly ratios: Record<string, number>;
}

const MIB = 1024;

async function race(c: Contender, opm: string, scratch: string): Promise<Race> {
  const opkit = (args: readonly string[]) =>
    run(process.execPath, [opkitBin, ...args], { maxBuffer: 1 << 30 });
  const series = new Map<string, number[]>();
  const record = (name: string, value: number | undefined) => {
    if (value !== undefined) series.set(name, [...(series.get(name) ?? []), value]);
  };
  /** A run's wall time as `<name>`, its peak resident set in MiB as `<name>-rss`. */
  const measured = async (name: string, command: string, args: readonly string[]): Promise<string> => {
    const r = await measuredRun(command, args);
    record(name, r.ms);
    record(`${name}-rss`, r.peakRssKib === undefined ? undefined : r.peakRssKib / MIB);
    return r.stdout;
  };
  const serving = (name: string, s: ServeStartup) => {
    record(name, s.ms);
    record(`${name}-rss`, s.servingRssKib === undefined ? undefined : s.servingRssKib / MIB);
  };
  const log = (line: string) => process.stderr.write(`${c.id}: ${line}\n`);

  log(`validate, ${RUNS} runs`);
  for (let i = 0; i < RUNS; i++) {
    // Interleaved, so both see the same machine state.
    await measured('opm-validate', opm, ['validate', c.dir]);
    await measured('opkit-validate', process.execPath, [opkitBin, 'catalog', 'validate', c.dir]);
    record('opkit-in-process', await time(async () => validateCatalog(await loadCatalog(c.dir))));
  }
  for (const format of ['json', 'yaml'] as const) {
    // The whole catalog to stdout. The outputs must be the same bytes, or the race is void.
    log(`render -o ${format}, ${RUNS} runs`);
    const args = ['render', c.dir, '-o', format];
    for (let i = 0; i < RUNS; i++) {
      const opmOut = await measured(`opm-render-${format}`, opm, args);
      const opkitOut = await measured(`opkit-render-${format}`, process.execPath, [
        opkitBin,
        'catalog',
        ...args,
      ]);
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
    serving(
      'opm-serve-startup',
      await timeServeStartup(opm, opmServeArgs(c.dir, { port, terminationLog }), port),
    );
    port = await freePort();
    serving(
      'opm-serve-startup-cached',
      await timeServeStartup(opm, opmServeArgs(c.dir, { port, cacheDir, terminationLog }), port),
    );
    port = await freePort();
    serving('opkit-serve-startup', await timeServeStartup(process.execPath, opkitServeArgs(port), port));
    port = await freePort();
    serving(
      'opkit-serve-startup-cached',
      await timeServeStartup(process.execPath, opkitServeArgs(port, ['--cache-dir', opkitCacheDir]), port),
    );
  }

  const rows: [experiment: string, id: string, title: string, unit: 'ms' | 'MiB'][] = [
    ['validate', 'opm-validate', 'opm validate', 'ms'],
    ['validate', 'opkit-validate', 'opkit catalog validate', 'ms'],
    ['validate', 'opkit-in-process', 'opkit load + validate in process', 'ms'],
    ['render', 'opm-render-json', 'opm render -o json', 'ms'],
    ['render', 'opkit-render-json', 'opkit catalog render -o json', 'ms'],
    ['render', 'opm-render-yaml', 'opm render -o yaml', 'ms'],
    ['render', 'opkit-render-yaml', 'opkit catalog render -o yaml', 'ms'],
    ['serve', 'opm-serve-startup', 'opm serve start-up', 'ms'],
    ['serve', 'opm-serve-startup-cached', 'opm serve start-up, pre-built cache', 'ms'],
    ['serve', 'opkit-serve-startup', 'opkit catalog serve start-up', 'ms'],
    ['serve', 'opkit-serve-startup-cached', 'opkit catalog serve start-up, pre-built cache', 'ms'],
    ['memory', 'opm-validate-rss', 'opm validate, peak RSS', 'MiB'],
    ['memory', 'opkit-validate-rss', 'opkit catalog validate, peak RSS', 'MiB'],
    ['memory', 'opm-render-json-rss', 'opm render -o json, peak RSS', 'MiB'],
    ['memory', 'opkit-render-json-rss', 'opkit catalog render -o json, peak RSS', 'MiB'],
    ['memory', 'opm-render-yaml-rss', 'opm render -o yaml, peak RSS', 'MiB'],
    ['memory', 'opkit-render-yaml-rss', 'opkit catalog render -o yaml, peak RSS', 'MiB'],
    ['memory', 'opm-serve-startup-cached-rss', 'opm serve, pre-built cache, RSS serving', 'MiB'],
    ['memory', 'opkit-serve-startup-cached-rss', 'opkit catalog serve, pre-built cache, RSS serving', 'MiB'],
    ['memory', 'opm-serve-startup-rss', 'opm serve, RSS serving', 'MiB'],
    ['memory', 'opkit-serve-startup-rss', 'opkit catalog serve, RSS serving', 'MiB'],
  ];
  const metrics = rows
    .filter(([, id]) => series.has(id))
    .map(([experiment, id, title, unit]) =>
      metric(
        `${c.id}.${experiment}`,
        `${c.id}.${id}`,
        `${title} (${c.title})`,
        unit,
        'lower',
        series.get(id)!,
      ),
    );
  const median = (id: string): number => metrics.find((m) => m.id === `${c.id}.${id}`)?.median ?? Number.NaN;
  const ratio = (what: string, tool = 'opm', against = what): number =>
    median(`opkit-${what}`) / median(`${tool}-${against}`);
  return {
    metrics,
    ratios: {
      validate: ratio('validate'),
      renderJson: ratio('render-json'),
      renderYaml: ratio('render-yaml'),
      serveStartup: ratio('serve-startup'),
      serveStartupOverCached: ratio('serve-startup', 'opm', 'serve-startup-cached'),
      serveStartupCached: ratio('serve-startup-cached'),
      peakRssValidate: ratio('validate-rss'),
      peakRssRenderJson: ratio('render-json-rss'),
      peakRssRenderYaml: ratio('render-yaml-rss'),
      servingRssCached: ratio('serve-startup-cached-rss'),
      servingRss: ratio('serve-startup-rss'),
    },
  };
}

async function main(): Promise<void> {
  if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`--runs takes a positive integer, not ${RUNS}`);
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
    let real: RealCatalog[] = [];
    if (realSource === undefined) process.stderr.write(`${REAL_CATALOGS_HELP}\n`);
    else real = realCatalogs(realSource, realVersions, join(scratch, 'real'));
    const catalogs = {
      synthetic: { packages: catalog.packages.length, bundles: catalog.bundles.length },
      community: {
        packages: shaped.catalog.packages.length,
        bundles: shaped.catalog.bundles.length,
        files: shaped.files.size,
        yamlFiles: [...shaped.files.keys()].filter((p) => p.endsWith('.yaml')).length,
        megabytes: bytes / 1e6,
      },
      real: real.map((r) => ({
        version: r.version,
        files: r.files,
        megabytes: r.bytes / 1e6,
        missing: r.missing,
      })),
    };
    process.stdout.write(
      `synthetic catalog: ${catalogs.synthetic.packages} packages, ${catalogs.synthetic.bundles} bundles\n` +
        `community-shaped catalog: ${catalogs.community.packages} packages, ${catalogs.community.bundles} bundles with inline objects, ` +
        `${catalogs.community.files} files (${catalogs.community.yamlFiles} YAML), ${catalogs.community.megabytes.toFixed(1)} MB\n`,
    );
    for (const r of real) {
      process.stdout.write(
        `real catalog ${r.version}: ${r.files} files, ${(r.bytes / 1e6).toFixed(1)} MB` +
          (r.missing.length > 0 ? ` (left out, not in the git directory: ${r.missing.join(', ')})` : '') +
          '\n',
      );
    }
    const contenders: Contender[] = [
      synthetic,
      community,
      ...real.map((r) => ({ id: r.version, title: `community ${r.version}`, dir: r.dir })),
    ];
    const unknown = only?.filter((id) => !contenders.some((c) => c.id === id)) ?? [];
    if (unknown.length > 0) {
      throw new Error(
        `--catalog takes ${contenders.map((c) => c.id).join(', ')} (or several, comma-separated), not ${unknown.join(', ')}`,
      );
    }
    const machine = machineInfo();
    const races: Record<string, Race> = {};
    for (const c of contenders) if (raced(c.id)) races[c.id] = await race(c, opm, scratch);
    const metrics = Object.values(races).flatMap((r) => r.metrics);
    process.stdout.write(`\n${formatMachine(machine)}\n\n${formatTable(metrics)}\n\n`);
    process.stdout.write('ratios opkit / opm of the medians (below 1 = opkit faster or smaller):\n');
    for (const [id, r] of Object.entries(races)) {
      const f = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '-' : n.toFixed(2));
      process.stdout.write(
        `  ${id}: validate ${f(r.ratios.validate)}, render json ${f(r.ratios.renderJson)}, render yaml ${f(r.ratios.renderYaml)}, ` +
          `serve start-up ${f(r.ratios.serveStartup)}, both with their caches ${f(r.ratios.serveStartupCached)}, ` +
          `over opm's cached ${f(r.ratios.serveStartupOverCached)}; peak RSS validate ${f(r.ratios.peakRssValidate)}, ` +
          `render json ${f(r.ratios.peakRssRenderJson)}, render yaml ${f(r.ratios.peakRssRenderYaml)}, ` +
          `RSS serving with caches ${f(r.ratios.servingRssCached)}\n`,
      );
    }
    const out = join(import.meta.dirname, '..', 'results', 'catalog.json');
    writeJson(out, {
      schemaVersion: 3,
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
