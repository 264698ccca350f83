// `nx run bench:release-gate`: the release gate on the real history of the community catalogs. For each catalog
// version (`catalogs/v4.12` … `v4.16` of the community operators' production repository, from its git directory:
// `--real-catalogs=<git dir>` or OPKIT_BENCH_REAL_CATALOGS), the newest `--history=<n>` (default 10) commits that
// changed it, each against its parent, go through `opkit catalog check <new> --previous <old> -o json`: none may
// crash, and the findings are counted by rule. The newest pair is then raced, `--runs=<n>` (default 3) times
// interleaved, against `opm render` of the new catalog alone: the whole gate on two revisions against one render.
// opkit runs as users run it: `tools/opkit/bin/opkit.js`, which loads the CLI's build (`nx run opkit:build`).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { opkitScript, opmBinary } from '@opkit/test-cluster';
import { measuredRun } from './catalog/measured-run.js';
import {
  catalogRevisions,
  DEFAULT_REAL_VERSIONS,
  extractCatalog,
  gitDirOf,
  REAL_CATALOGS_ENV,
  REAL_CATALOGS_HELP,
} from './catalog/real-catalogs.js';
import { formatMachine, machineInfo } from './machine.js';
import { formatTable, type Metric, metric, writeJson } from './report.js';

const args = process.argv.slice(2);
const option = (name: string): string | undefined =>
  args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const RUNS = Number(option('runs') ?? 3);
const HISTORY = Number(option('history') ?? 10);
const source = option('real-catalogs') ?? process.env[REAL_CATALOGS_ENV];
const versions = option('real-versions')?.split(',') ?? DEFAULT_REAL_VERSIONS;
const opkitBin = opkitScript();
const MIB = 1024;

/** What the gate said on one pair of revisions. */
interface GatePass {
  readonly version: string;
  readonly revision: string;
  readonly subject: string;
  readonly passed: boolean;
  readonly ms: number;
  /** Findings by rule id. */
  readonly rules: Record<string, number>;
}

/** The gate's JSON report, as far as this benchmark reads it. */
interface GateReport {
  readonly verdict: 'pass' | 'fail';
  readonly failing: readonly { readonly rule: string }[];
  readonly accepted: readonly { readonly rule: string }[];
  readonly other: readonly { readonly rule: string }[];
}

function readReport(stdout: string, where: string): { passed: boolean; findings: { rule: string }[] } {
  let report: Partial<GateReport>;
  try {
    report = JSON.parse(stdout) as Partial<GateReport>;
  } catch (error) {
    throw new Error(`${where}: the gate printed no JSON report (${(error as Error).message})`);
  }
  const { verdict, failing, accepted, other } = report;
  if (verdict === undefined || !Array.isArray(failing) || !Array.isArray(accepted) || !Array.isArray(other)) {
    throw new Error(`${where}: the gate's report has no verdict or findings`);
  }
  return { passed: verdict === 'pass', findings: [...failing, ...accepted, ...other] };
}

async function gate(previous: string, next: string) {
  // 1 is the gate's "refused"; anything else is a crash.
  return measuredRun(
    process.execPath,
    [opkitBin, 'catalog', 'check', next, '--previous', previous, '-o', 'json'],
    [0, 1],
  );
}

async function main(): Promise<void> {
  if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`--runs takes a positive integer, not ${RUNS}`);
  if (!Number.isInteger(HISTORY) || HISTORY < 1) {
    throw new Error(`--history takes a positive integer, not ${HISTORY}`);
  }
  if (source === undefined) throw new Error(REAL_CATALOGS_HELP);
  const gitDir = gitDirOf(source);
  if (gitDir === undefined) {
    throw new Error(`${source}: not a git directory; the release gate needs the catalogs' history`);
  }
  if (!existsSync(join(dirname(opkitBin), '..', 'dist', 'main.js'))) {
    throw new Error('the CLI has no build: run `npx nx run opkit:build` (the Nx target does it first)');
  }
  const scratch = mkdtempSync(join(tmpdir(), 'opkit-bench-release-gate-'));
  try {
    const opm = await opmBinary((line) => process.stderr.write(`${line}\n`));
    const passes: GatePass[] = [];
    const series = new Map<string, number[]>();
    const record = (name: string, value: number | undefined) => {
      if (value !== undefined) series.set(name, [...(series.get(name) ?? []), value]);
    };
    const raced: string[] = [];
    for (const version of versions) {
      const revisions = catalogRevisions(gitDir, version, HISTORY);
      if (revisions.length === 0) continue;
      for (const [i, r] of revisions.entries()) {
        const pair = join(scratch, `${version}-${i}`);
        const previous = extractCatalog(gitDir, version, join(pair, 'previous'), r.parent).dir;
        const next = extractCatalog(gitDir, version, join(pair, 'next'), r.revision).dir;
        const where = `${version} ${r.revision.slice(0, 9)} (${r.subject})`;
        const run = await gate(previous, next);
        const report = readReport(run.stdout, where);
        const rules: Record<string, number> = {};
        for (const f of report.findings) rules[f.rule] = (rules[f.rule] ?? 0) + 1;
        passes.push({
          version,
          revision: r.revision,
          subject: r.subject,
          passed: report.passed,
          ms: run.ms,
          rules,
        });
        process.stderr.write(
          `${where}: ${report.passed ? 'passed' : 'refused'}, ${report.findings.length} findings, ${Math.round(run.ms)} ms\n`,
        );
        if (i === 0) {
          // The newest pair is raced: the whole gate on two revisions against opm rendering one.
          raced.push(version);
          for (let k = 0; k < RUNS; k++) {
            const render = await measuredRun(opm, ['render', next, '-o', 'json']);
            record(`${version}.opm-render`, render.ms);
            record(`${version}.opm-render-rss`, render.peakRssKib && render.peakRssKib / MIB);
            const checked = await gate(previous, next);
            record(`${version}.opkit-check`, checked.ms);
            record(`${version}.opkit-check-rss`, checked.peakRssKib && checked.peakRssKib / MIB);
          }
        } else {
          rmSync(pair, { recursive: true, force: true });
        }
      }
    }
    if (passes.length === 0) throw new Error(`${source}: no history of ${versions.join(', ')}`);
    const metrics: Metric[] = [];
    for (const version of raced) {
      for (const [id, title, unit] of [
        ['opm-render', `opm render -o json (community ${version}, newer revision)`, 'ms'],
        ['opkit-check', `opkit catalog check, two revisions (community ${version})`, 'ms'],
        ['opm-render-rss', `opm render -o json, peak RSS (community ${version})`, 'MiB'],
        ['opkit-check-rss', `opkit catalog check, peak RSS (community ${version})`, 'MiB'],
      ] as const) {
        const runs = series.get(`${version}.${id}`);
        if (runs !== undefined) metrics.push(metric(version, `${version}.${id}`, title, unit, 'lower', runs));
      }
    }
    const median = (id: string) => metrics.find((m) => m.id === id)?.median ?? Number.NaN;
    const ratios = Object.fromEntries(
      raced.map((v) => [
        v,
        {
          time: median(`${v}.opkit-check`) / median(`${v}.opm-render`),
          peakRss: median(`${v}.opkit-check-rss`) / median(`${v}.opm-render-rss`),
        },
      ]),
    );
    const machine = machineInfo();
    process.stdout.write(`\n${formatMachine(machine)}\n\n${formatTable(metrics)}\n\n`);
    process.stdout.write(
      'ratios gate on two revisions / opm render of one (below 1 = the gate is faster):\n',
    );
    for (const [v, r] of Object.entries(ratios)) {
      process.stdout.write(`  ${v}: time ${r.time.toFixed(2)}, peak RSS ${r.peakRss.toFixed(2)}\n`);
    }
    const totals: Record<string, number> = {};
    for (const p of passes)
      for (const [rule, n] of Object.entries(p.rules)) totals[rule] = (totals[rule] ?? 0) + n;
    process.stdout.write(
      `\n${passes.length} revision pairs checked, none crashed; ${passes.filter((p) => !p.passed).length} refused\n` +
        'findings by rule over the history:\n' +
        Object.entries(totals)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([rule, n]) => `  ${rule}: ${n}\n`)
          .join(''),
    );
    const out = join(import.meta.dirname, '..', 'results', 'release-gate.json');
    writeJson(out, {
      schemaVersion: 1,
      benchmark: 'release-gate',
      machine,
      runs: RUNS,
      metrics,
      ratios,
      passes,
    });
    process.stdout.write(`Results written to ${out}\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (error) {
  process.stderr.write(`bench:release-gate failed: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
