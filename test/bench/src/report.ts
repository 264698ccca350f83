import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Stats, stats } from './stats.js';

/** One reported figure: its value in every measured run and their median, min and max. */
export interface Metric extends Stats {
  readonly id: string;
  /** Key of the raw run records this figure comes from, in the result file's `runs`. */
  readonly experiment: string;
  readonly title: string;
  readonly unit: string;
  /** Which way is better, for whoever compares two result files. */
  readonly better: 'higher' | 'lower';
  readonly runs: readonly number[];
}

export function metric(
  experiment: string,
  id: string,
  title: string,
  unit: string,
  better: Metric['better'],
  runs: readonly number[],
): Metric {
  return { id, experiment, title, unit, better, runs, ...stats(runs) };
}

function formatNumber(value: number): string {
  const abs = Math.abs(value);
  const digits = abs >= 1000 ? 0 : abs >= 100 ? 1 : 2;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A plain-text table: one row per metric, numbers right-aligned. */
export function formatTable(metrics: readonly Metric[]): string {
  const header = ['Benchmark', 'Unit', 'Median', 'Min', 'Max', 'Runs'];
  const rows = metrics.map((m) => [
    m.title,
    m.unit,
    formatNumber(m.median),
    formatNumber(m.min),
    formatNumber(m.max),
    String(m.runs.length),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** Writes `data` as pretty JSON, creating the directory; atomically, so a reader never sees half a file. */
export function writeJson(path: string, data: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, `${JSON.stringify(data, null, 2)}\n`);
  renameSync(partial, path);
}
