import { type Metric, metric } from '../report.js';
import type { OperatorName } from './operator-process.js';
import { controlPlaneCpuSeconds, type LimitRun, MIB, type OperatorRun } from './scenario.js';

const OPERATORS = [
  'opkit',
  'opkit-without-apply',
  'baseline',
  'baseline-same-objects',
] as const satisfies readonly OperatorName[];

/** One table row per figure, per fleet size: each operator measured, then the limit. */
export function convergeMetrics(
  sizes: readonly number[],
  operatorRuns: readonly OperatorRun[],
  limitRuns: readonly LimitRun[],
): Metric[] {
  const metrics: Metric[] = [];
  for (const n of sizes) {
    for (const op of OPERATORS) {
      const runs = operatorRuns.filter((r) => r.operator === op && r.memcacheds === n);
      if (runs.length === 0) continue;
      const row = (
        id: string,
        title: string,
        unit: string,
        better: Metric['better'],
        value: (r: OperatorRun) => number,
      ) =>
        metrics.push(
          metric('operators', `${n}.${op}.${id}`, `${n} CRs, ${op}: ${title}`, unit, better, runs.map(value)),
        );
      row('create.seconds', 'converge after create', 's', 'lower', (r) => r.create.elapsedMs / 1000);
      row('create.requests', 'requests during converge', 'requests', 'lower', (r) => r.create.totalRequests);
      row(
        'create.writesPerCr',
        'writes per CR during converge',
        'writes/CR',
        'lower',
        (r) => r.create.writesPerMemcached,
      );
      row(
        'create.writesPerCrUntilQuiet',
        'writes per CR for converge, until the operator is quiet',
        'writes/CR',
        'lower',
        (r) => r.create.writesPerMemcachedUntilQuiet,
      );
      row('create.cpuSeconds', 'CPU during converge', 'CPU s', 'lower', (r) => r.create.cpuSeconds);
      row(
        'create.controlPlaneWritesPerCr',
        'writes per CR across the control plane during converge',
        'writes/CR',
        'lower',
        (r) => r.create.controlPlane.writesPerMemcached,
      );
      row(
        'create.controlPlaneConflictsPerCr',
        'of those, refused with 409 Conflict',
        'writes/CR',
        'lower',
        (r) => r.create.controlPlane.conflictsPerMemcached,
      );
      row(
        'steady.requestsPerMinute',
        `steady state, requests`,
        'requests/min',
        'lower',
        (r) => r.steady.requestsPerMinute,
      );
      row(
        'steady.writes',
        `steady state, writes in ${runs[0]!.steady.seconds} s`,
        'writes',
        'lower',
        (r) => r.steady.writes,
      );
      row('update.seconds', 'converge after resizing all', 's', 'lower', (r) => r.update.elapsedMs / 1000);
      row(
        'update.writesPerCr',
        'writes per CR during resize',
        'writes/CR',
        'lower',
        (r) => r.update.writesPerMemcached,
      );
      row(
        'update.writesPerCrUntilQuiet',
        'writes per CR for resize, until the operator is quiet',
        'writes/CR',
        'lower',
        (r) => r.update.writesPerMemcachedUntilQuiet,
      );
      row(
        'update.controlPlaneWritesPerCr',
        'writes per CR across the control plane during resize',
        'writes/CR',
        'lower',
        (r) => r.update.controlPlane.writesPerMemcached,
      );
      row(
        'update.controlPlaneConflictsPerCr',
        'of those, refused with 409 Conflict',
        'writes/CR',
        'lower',
        (r) => r.update.controlPlane.conflictsPerMemcached,
      );
      row('update.controlPlaneCpuSeconds', 'control-plane CPU during resize', 'CPU s', 'lower', (r) =>
        controlPlaneCpuSeconds(r.update.controlPlane),
      );
      row('delete.seconds', 'all gone after delete', 's', 'lower', (r) => r.delete.elapsedMs / 1000);
      row(
        'delete.writesPerCr',
        'writes per CR during delete',
        'writes/CR',
        'lower',
        (r) => r.delete.writesPerMemcached,
      );
      row(
        'delete.writesPerCrUntilQuiet',
        'writes per CR for delete, until the operator is quiet',
        'writes/CR',
        'lower',
        (r) => r.delete.writesPerMemcachedUntilQuiet,
      );
      row('cpuSeconds', 'CPU, create to last delete', 'CPU s', 'lower', (r) => r.cpuSeconds);
      row('peakRss', 'peak RSS (VmHWM)', 'MiB', 'lower', (r) => r.peakRssBytes / MIB);
    }
    const limits = limitRuns.filter((r) => r.memcacheds === n);
    if (limits.length > 0) {
      const row = (id: string, title: string, unit: string, value: (r: LimitRun) => number) =>
        metrics.push(
          metric('limit', `${n}.limit.${id}`, `${n} CRs, limit: ${title}`, unit, 'lower', limits.map(value)),
        );
      row('create.seconds', 'converge after create', 's', (r) => r.create.elapsedMs / 1000);
      row('create.writesPerCr', 'writes per CR during converge', 'writes/CR', (r) => r.create.writes / n);
      row('update.seconds', 'converge after resizing all', 's', (r) => r.update.elapsedMs / 1000);
    }
  }
  return metrics;
}

/** A ratio of two medians; below 1 means the numerator (ours) is lower. */
export interface Ratio {
  readonly id: string;
  readonly title: string;
  readonly value: number;
}

/** Ours against the baseline and against the limit, from the medians. */
export function convergeRatios(sizes: readonly number[], metrics: readonly Metric[]): Ratio[] {
  const median = (id: string) => metrics.find((m) => m.id === id)?.median;
  const ratios: Ratio[] = [];
  const add = (id: string, title: string, numerator: string, denominator: string) => {
    const a = median(numerator);
    const b = median(denominator);
    if (a === undefined || b === undefined || b === 0) return;
    ratios.push({ id, title, value: a / b });
  };
  for (const n of sizes) {
    add(
      `${n}.create.oursOverBaseline`,
      `${n} CRs: converge time, ours / baseline`,
      `${n}.opkit.create.seconds`,
      `${n}.baseline.create.seconds`,
    );
    add(
      `${n}.create.oursOverLimit`,
      `${n} CRs: converge time, ours / limit`,
      `${n}.opkit.create.seconds`,
      `${n}.limit.create.seconds`,
    );
    add(
      `${n}.create.baselineOverLimit`,
      `${n} CRs: converge time, baseline / limit`,
      `${n}.baseline.create.seconds`,
      `${n}.limit.create.seconds`,
    );
    add(
      `${n}.create.writesOursOverBaseline`,
      `${n} CRs: writes per CR at converge, ours / baseline`,
      `${n}.opkit.create.writesPerCr`,
      `${n}.baseline.create.writesPerCr`,
    );
    add(
      `${n}.create.controlPlaneWritesOursOverBaseline`,
      `${n} CRs: writes per CR across the control plane at converge, ours / baseline`,
      `${n}.opkit.create.controlPlaneWritesPerCr`,
      `${n}.baseline.create.controlPlaneWritesPerCr`,
    );
    add(
      `${n}.update.writesUntilQuietOursOverBaseline`,
      `${n} CRs: writes per CR for resize until quiet, ours / baseline`,
      `${n}.opkit.update.writesPerCrUntilQuiet`,
      `${n}.baseline.update.writesPerCrUntilQuiet`,
    );
    add(
      `${n}.update.controlPlaneWritesOursOverBaseline`,
      `${n} CRs: writes per CR across the control plane at resize, ours / baseline`,
      `${n}.opkit.update.controlPlaneWritesPerCr`,
      `${n}.baseline.update.controlPlaneWritesPerCr`,
    );
    add(
      `${n}.update.oursOverBaseline`,
      `${n} CRs: resize time, ours / baseline`,
      `${n}.opkit.update.seconds`,
      `${n}.baseline.update.seconds`,
    );
    add(
      `${n}.update.oursOverLimit`,
      `${n} CRs: resize time, ours / limit`,
      `${n}.opkit.update.seconds`,
      `${n}.limit.update.seconds`,
    );
    add(
      `${n}.delete.oursOverBaseline`,
      `${n} CRs: delete time, ours / baseline`,
      `${n}.opkit.delete.seconds`,
      `${n}.baseline.delete.seconds`,
    );
    add(
      `${n}.cpu.oursOverBaseline`,
      `${n} CRs: CPU time, ours / baseline`,
      `${n}.opkit.cpuSeconds`,
      `${n}.baseline.cpuSeconds`,
    );
    add(
      `${n}.peakRss.oursOverBaseline`,
      `${n} CRs: peak RSS, ours / baseline`,
      `${n}.opkit.peakRss`,
      `${n}.baseline.peakRss`,
    );
    // Against the guide's controller keeping the same objects (`--same-objects`): equal control-plane work.
    for (const [id, figure, title] of [
      ['create', 'create.seconds', 'converge time'],
      ['update', 'update.seconds', 'resize time'],
      ['delete', 'delete.seconds', 'delete time'],
      ['create.writes', 'create.writesPerCr', 'writes per CR at converge'],
      ['update.writes', 'update.writesPerCr', 'writes per CR at resize'],
      ['create.writesUntilQuiet', 'create.writesPerCrUntilQuiet', 'writes per CR for converge until quiet'],
      ['update.writesUntilQuiet', 'update.writesPerCrUntilQuiet', 'writes per CR for resize until quiet'],
      ['delete.writesUntilQuiet', 'delete.writesPerCrUntilQuiet', 'writes per CR for delete until quiet'],
      [
        'create.controlPlaneWrites',
        'create.controlPlaneWritesPerCr',
        'writes per CR across the control plane at converge',
      ],
      [
        'update.controlPlaneWrites',
        'update.controlPlaneWritesPerCr',
        'writes per CR across the control plane at resize',
      ],
      ['cpu', 'cpuSeconds', 'CPU time'],
      ['peakRss', 'peakRss', 'peak RSS'],
    ] as const) {
      add(
        `${n}.${id}.oursOverSameObjects`,
        `${n} CRs: ${title}, ours / baseline with the same objects`,
        `${n}.opkit.${figure}`,
        `${n}.baseline-same-objects.${figure}`,
      );
    }
    // Ours writing without server-side apply (`--also-without-apply`): what apply costs, against ours as it ships.
    for (const [id, figure, title] of [
      ['create', 'create.seconds', 'converge time'],
      ['update', 'update.seconds', 'resize time'],
      ['delete', 'delete.seconds', 'delete time'],
      ['update.controlPlaneCpu', 'update.controlPlaneCpuSeconds', 'control-plane CPU during resize'],
      ['cpu', 'cpuSeconds', 'CPU time'],
    ] as const) {
      add(
        `${n}.${id}.withoutApplyOverOurs`,
        `${n} CRs: ${title}, ours without apply / ours`,
        `${n}.opkit-without-apply.${figure}`,
        `${n}.opkit.${figure}`,
      );
    }
    add(
      `${n}.update.withoutApplyOverSameObjects`,
      `${n} CRs: resize time, ours without apply / baseline with the same objects`,
      `${n}.opkit-without-apply.update.seconds`,
      `${n}.baseline-same-objects.update.seconds`,
    );
  }
  return ratios;
}

export function formatRatios(ratios: readonly Ratio[]): string {
  const width = Math.max(...ratios.map((r) => r.title.length), 5);
  return [
    'Ratios of medians (below 1: ours is lower, i.e. faster or smaller)',
    ...ratios.map((r) => `${r.title.padEnd(width)}  ${r.value.toFixed(2)}`),
  ].join('\n');
}
