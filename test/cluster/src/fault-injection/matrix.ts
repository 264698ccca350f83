import type { ApiProxy, ProxiedWrite } from './api-proxy.js';
import type { OperatorProcess } from './operator-process.js';

/** The faults a cell can inject right after one of the operator's writes. */
export type FaultKind = 'crash' | 'api-restart' | 'watch-delay' | 'watch-reorder';

/** One run of an operation: a fresh object, a fresh operator process, the proxy it talks through. */
export interface FaultRun {
  /** A name for this run's object, unique across the matrix. */
  readonly name: string;
  /** The fault this run injects (`none` for the clean run): e.g. a restarted API server fails the cluster's own controllers for a while. */
  readonly fault: FaultKind | 'none';
  readonly proxy: ApiProxy;
  readonly operator: OperatorProcess;
}

/** A multi-step operation of the operator, and how to tell it ended well. */
export interface FaultOperation {
  readonly name: string;
  /** Brings the object to where the operation starts (converged); its writes are not steps. */
  readonly prepare?: (run: FaultRun) => Promise<void>;
  /** Starts the operation (e.g. writes the new spec); the operator's writes from here on are its steps. */
  readonly act: (run: FaultRun) => Promise<void>;
  /**
   * Waits for the end state and judges it: every problem found (not converged, not quiet, a duplicate side
   * effect, something left behind). Empty when the run ended well.
   */
  readonly check: (run: FaultRun) => Promise<readonly string[]>;
}

/** Which steps a fault is injected at: every one, or every `sample`-th (always the first and the last). */
export interface FaultPlan {
  readonly fault: FaultKind;
  readonly sample?: number;
}

export interface FaultMatrixOptions {
  readonly operations: readonly FaultOperation[];
  readonly faults: readonly FaultPlan[];
  readonly proxy: ApiProxy;
  /** A new operator process talking through the proxy (not yet started). */
  readonly operator: () => OperatorProcess;
  readonly restartApiServer: () => Promise<void>;
  /** How long watch streams are held for `watch-delay` and `watch-reorder`. @default 3000 */
  readonly watchDelayMs?: number;
  /** For `watch-reorder`: the time between two streams' releases. @default 250 */
  readonly watchReorderGapMs?: number;
  /**
   * Run only the cells `selectsCell` finds in this pattern (`restart:crash:1-40,scale-in:*:5`); `FAULT_CELL`
   * overrides it. The clean runs always run, as they number the steps.
   */
  readonly only?: string;
  /**
   * Runs the operations' cells in turn (the first of each, then the second of each, …) after all their clean
   * runs, instead of operation by operation. For operations that undo each other (a scale out and a scale in)
   * each cell then starts where the other's last cell ended, so its `prepare` finds nothing to do instead of
   * undoing the cell before it. @default false
   */
  readonly interleave?: boolean;
  readonly log?: (line: string) => void;
}

/** The result of one cell of the matrix. */
export interface FaultCell {
  readonly operation: string;
  readonly fault: FaultKind | 'none';
  readonly step: number;
  /** The write the fault followed, e.g. `PUT …/memcacheds/m` (empty for the clean run). */
  readonly after: string;
  readonly problems: readonly string[];
  /**
   * Whether the operation made write number `step` (and so the fault was injected): the number of writes can
   * vary with timing (status updates follow the operands' progress), and a run with fewer is skipped.
   */
  readonly reached: boolean;
  /** How many writes the operator made during the operation. */
  readonly writes: number;
  /** Those writes in order, repeats folded: `PATCH …/memcacheds/m/status 200 ×3, POST …/events 201`. */
  readonly summary: string;
  readonly durationMs: number;
  /** The part of `durationMs` that `prepare` took: bringing the object to where the operation starts. */
  readonly prepareMs: number;
}

export interface FaultMatrixReport {
  readonly cells: readonly FaultCell[];
  /** The writes of each operation's clean run. */
  readonly steps: Readonly<Record<string, number>>;
  readonly durationMs: number;
  readonly failed: readonly FaultCell[];
}

/** The steps of `count` a plan injects at. */
export function plannedSteps(plan: FaultPlan, count: number): number[] {
  const every = Math.max(1, plan.sample ?? 1);
  const steps = Array.from({ length: count }, (_, i) => i + 1).filter((s) => (s - 1) % every === 0);
  if (count > 0 && steps.at(-1) !== count) steps.push(count);
  return steps;
}

/**
 * The order cells run in, given each operation's cells in its own order: operation by operation, or with
 * `interleave` in turn (one of each operation, then the next of each), an operation with fewer cells dropping
 * out when it has run them all.
 */
export function cellOrder<Cell>(perOperation: readonly (readonly Cell[])[], interleave: boolean): Cell[] {
  if (!interleave) return perOperation.flat();
  const longest = Math.max(0, ...perOperation.map((cells) => cells.length));
  return Array.from({ length: longest }, (_, i) =>
    perOperation.flatMap((cells) => (i < cells.length ? [cells[i] as Cell] : [])),
  ).flat();
}

/** The operator's last lines for a failing cell's report; nothing when it printed nothing. */
export function operatorOutput(operator: OperatorProcess): string[] {
  const output = operator.lastOutput.trimEnd();
  return output === '' ? [] : [`the operator's last output:\n${output}`];
}

export function cellId(cell: Pick<FaultCell, 'operation' | 'fault' | 'step'>): string {
  return `${cell.operation}:${cell.fault}:${cell.step}`;
}

/**
 * Whether `pattern` selects a cell: a comma-separated list of `operation:fault:steps`, where each part may be
 * `*` and `steps` one step (`12`) or a range (`1-40`). A long matrix can so be run in parts.
 */
export function selectsCell(pattern: string, cell: Pick<FaultCell, 'operation' | 'fault' | 'step'>): boolean {
  return pattern.split(',').some((alternative) => {
    const [operation = '', fault = '', steps = ''] = alternative.trim().split(':');
    const range = /^(\d+)(?:-(\d+))?$/.exec(steps);
    const stepMatches =
      steps === '*' ||
      (range !== null && cell.step >= Number(range[1]) && cell.step <= Number(range[2] ?? range[1]));
    return (
      (operation === '*' || operation === cell.operation) &&
      (fault === '*' || fault === cell.fault) &&
      stepMatches
    );
  });
}

function describe(path: string, method: string): string {
  return `${method} ${path.replace(/^\/apis?\//, '').split('?')[0]}`;
}

/** The writes in order, repeats folded: `PATCH …/memcacheds/m/status 200 ×3, POST …/events 201`. */
function summarize(writes: readonly ProxiedWrite[]): string {
  const folded: { text: string; times: number }[] = [];
  for (const w of writes) {
    const outcome =
      w.status === 0
        ? `no answer${w.error ? ` (${w.error})` : ''}`
        : `${w.status}${w.unanswered ? ' (operator gone)' : ''}`;
    const text = `${describe(w.path, w.method)} ${outcome}`;
    const last = folded.at(-1);
    if (last?.text === text) last.times++;
    else folded.push({ text, times: 1 });
  }
  return folded.map((f) => (f.times > 1 ? `${f.text} ×${f.times}` : f.text)).join(', ');
}

/**
 * The share of cells that reached their step, which a matrix should keep high (a fault never injected tests
 * nothing). Cells at the clean run's last write are not counted: the number of writes varies with timing, and
 * a run with fewer never reaches that step.
 */
export function reachedShare(report: Pick<FaultMatrixReport, 'cells' | 'steps'>): number {
  const counted = report.cells.filter((c) => c.step < (report.steps[c.operation] ?? 0));
  return counted.length === 0 ? 1 : counted.filter((c) => c.reached).length / counted.length;
}

/** The width of the fault column: the longest fault's name. */
const FAULT_WIDTH = 'watch-reorder'.length;

/** The matrix as a table: one line per cell. */
export function formatMatrix(report: FaultMatrixReport): string {
  const lines = report.cells.map(
    (c) =>
      `${c.operation.padEnd(10)} ${c.fault.padEnd(FAULT_WIDTH)} ${String(c.step).padStart(3)}  ${(c.problems.length ? 'FAIL' : c.reached ? 'ok' : 'skip').padEnd(4)} ${`${(c.durationMs / 1000).toFixed(1)} s`.padStart(7)}  ${c.after}`,
  );
  const failures = report.failed.flatMap((c) => [
    `FAIL ${cellId(c)}: ${c.problems.join('; ')}`,
    `  re-run this cell alone: FAULT_CELL=${cellId(c)}`,
  ]);
  return [
    `${'operation'.padEnd(10)} ${'fault'.padEnd(FAULT_WIDTH)} step  res     time  after write`,
    ...lines,
    `${report.cells.length} cells, ${report.failed.length} failed, ${report.cells.filter((c) => !c.reached).length} skipped (fewer writes than the clean run), ${(report.durationMs / 1000).toFixed(1)} s`,
    ...failures,
  ].join('\n');
}

/**
 * Sieve-style fault injection: runs each operation once cleanly to learn its writes, then once per planned
 * (fault, step), injecting the fault right after the operator's write number `step`: `crash` kills the
 * operator (SIGKILL, before it learns the write's outcome) and starts a new one, `api-restart` restarts the
 * API server, `watch-delay` holds every watch stream for a while, `watch-reorder` holds them and releases
 * them stream by stream in another order than their events came. Each run must end as the clean one does,
 * judged by the operation's `check`.
 */
export async function runFaultMatrix(options: FaultMatrixOptions): Promise<FaultMatrixReport> {
  const log = options.log ?? (() => {});
  const only = process.env.FAULT_CELL || options.only;
  const watchDelayMs = options.watchDelayMs ?? 3000;
  const started = Date.now();
  const cells: FaultCell[] = [];
  const steps: Record<string, number> = {};
  let runs = 0;

  const runCell = async (
    operation: FaultOperation,
    fault: FaultKind | 'none',
    step: number,
  ): Promise<FaultCell> => {
    const operator = options.operator();
    const run: FaultRun = { name: `${operation.name}-${++runs}`, fault, proxy: options.proxy, operator };
    const cellStarted = Date.now();
    let after = '';
    let prepareMs = 0;
    /** A hold or a restart in progress: settles with the time it was over. */
    let faultOver: Promise<number> | undefined;
    operator.start();
    try {
      options.proxy.arm();
      await operation.prepare?.(run);
      prepareMs = Date.now() - cellStarted;
      options.proxy.arm(async (write) => {
        if (fault === 'none' || write.step !== step) return 'deliver';
        after = `${describe(write.path, write.method)} (${write.status})`;
        if (fault === 'crash') {
          await operator.kill();
          operator.start();
          return 'drop';
        }
        // A hold starts before this answer is delivered, a restart once it is; either goes on while the
        // operator does.
        const injected =
          fault === 'api-restart'
            ? options.restartApiServer()
            : options.proxy.holdWatches(watchDelayMs, {
                order: fault === 'watch-reorder' ? 'reversed' : 'together',
                gapMs: options.watchReorderGapMs,
              });
        faultOver = injected.then(() => Date.now());
        return 'deliver';
      });
      await operation.act(run);
      const checkStarted = Date.now();
      let problems = [...(await operation.check(run))];
      // The check may have found the object converged while events were held or the API server was away,
      // before the operator acted on what came after: judged again once the fault is over.
      if (faultOver && (await faultOver) > checkStarted) problems = [...(await operation.check(run))];
      const summary = summarize(options.proxy.writes);
      if (problems.length > 0)
        problems.push(`the operator's writes: ${summary}`, ...operatorOutput(operator));
      return {
        operation: operation.name,
        fault,
        step,
        after,
        problems,
        reached: fault === 'none' || after !== '',
        writes: options.proxy.writes.length,
        summary,
        durationMs: Date.now() - cellStarted,
        prepareMs,
      };
    } catch (error) {
      return {
        operation: operation.name,
        fault,
        step,
        after,
        problems: [`${error instanceof Error ? error.message : String(error)}`, ...operatorOutput(operator)],
        reached: fault === 'none' || after !== '',
        writes: options.proxy.writes.length,
        summary: summarize(options.proxy.writes),
        durationMs: Date.now() - cellStarted,
        prepareMs,
      };
    } finally {
      await faultOver?.catch(() => {});
      options.proxy.arm();
      await operator.kill();
    }
  };

  const runClean = async (operation: FaultOperation): Promise<void> => {
    const clean = await runCell(operation, 'none', 0);
    steps[operation.name] = clean.writes;
    cells.push(clean);
    log(
      `${operation.name}: clean run, ${steps[operation.name]} writes, ${(clean.durationMs / 1000).toFixed(1)} s, ${clean.problems.length ? 'FAILED' : 'ok'}: ${clean.summary}`,
    );
  };
  /** The cells of an operation whose clean run has numbered its writes, as the plans and `only` select them. */
  const planned = (operation: FaultOperation) =>
    options.faults.flatMap((plan) =>
      plannedSteps(plan, steps[operation.name] ?? 0)
        .filter((step) => !only || selectsCell(only, { operation: operation.name, fault: plan.fault, step }))
        .map((step) => ({ operation, fault: plan.fault, step })),
    );
  const runPlanned = async (planned: { operation: FaultOperation; fault: FaultKind; step: number }) => {
    const cell = await runCell(planned.operation, planned.fault, planned.step);
    cells.push(cell);
    const result = cell.problems.length ? `FAIL: ${cell.problems.join('; ')}` : cell.reached ? 'ok' : 'skip';
    log(
      `${cellId(cell)} ${result} (${cell.writes} writes, ${(cell.durationMs / 1000).toFixed(1)} s, of which ${(cell.prepareMs / 1000).toFixed(1)} s preparing)`,
    );
  };

  if (options.interleave) {
    for (const operation of options.operations) await runClean(operation);
    for (const cell of cellOrder(options.operations.map(planned), true)) await runPlanned(cell);
  } else {
    for (const operation of options.operations) {
      await runClean(operation);
      for (const cell of planned(operation)) await runPlanned(cell);
    }
  }
  return {
    cells,
    steps,
    durationMs: Date.now() - started,
    failed: cells.filter((c) => c.problems.length > 0),
  };
}
