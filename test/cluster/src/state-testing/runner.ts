import { KubeApiError, type KubeRest } from '../kube/rest.js';
import { awaitConvergence } from './convergence.js';
import type { FieldHints } from './hints.js';
import { jsonEqual } from './json-path.js';
import { type SchemaCrd, specSchemaOf } from './openapi.js';
import { shrinkSequence } from './shrink.js';
import { generateSteps, type Step } from './steps.js';
import { collectionPath, type ResourceType, WriteWatch } from './write-watch.js';

/** The object under test as the API server has it. */
export interface LiveObject<Spec, Status> {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly uid: string;
    readonly generation: number;
    readonly resourceVersion: string;
  };
  readonly spec: Spec;
  readonly status?: Status;
}

/** What an oracle is given: the spec as stored (with the API's defaults), the spec written, a client. */
/** Whether the status says the operator has done the generation's work, e.g. Available with observedGeneration. */
export type Readiness<Spec, Status> = (
  status: Status | undefined,
  generation: number,
  object: LiveObject<Spec, Status>,
) => boolean;

export interface OracleContext<Spec, Status = unknown> {
  readonly spec: Spec;
  readonly written: Spec;
  readonly object: LiveObject<Spec, Status>;
  readonly rest: KubeRest;
  readonly namespace: string;
}

/**
 * The operator author's judgement of the operands: every way they differ from what the spec says (empty when
 * they are as it says), e.g. `Deployment replicas 2, spec says 3`.
 */
export type Oracle<Spec, Status = unknown> = (
  context: OracleContext<Spec, Status>,
) => Promise<readonly string[]>;

export interface StateTestOptions<Spec, Status> {
  readonly rest: KubeRest;
  readonly namespace: string;
  /** The operator's CRD: the kind under test and the schema steps are generated from. */
  readonly crd: SchemaCrd;
  /** The version to write at. @default the storage version */
  readonly version?: string;
  /** The kinds the operator owns; writes to them (and to the object) must stop once it has converged. */
  readonly owned: readonly ResourceType[];
  /** The spec every run creates its object with. */
  readonly initial: Spec;
  readonly oracle: Oracle<Spec, Status>;
  /** Whether the status says the operator has done the generation's work, e.g. Available with observedGeneration. */
  readonly ready: Readiness<Spec, Status>;
  readonly hints?: FieldHints;
  readonly admissible?: (spec: Spec) => boolean;
  readonly mix?: { readonly change: number; readonly respell: number; readonly invalid: number };
  /**
   * Write exactly these specs, in order, as changes instead of generated steps: a shrunk reproduction kept as
   * a regression test.
   */
  readonly specs?: readonly Spec[];
  /** Steps per run; `STATE_STEPS` overrides it. @default 50 */
  readonly steps?: number;
  /** `STATE_SEED` overrides it. @default 20261123 */
  readonly seed?: number;
  /** How long no write may be seen before the operator counts as quiet. @default 400 */
  readonly settleMs?: number;
  /** How long one step may take to converge. @default 30000 */
  readonly stepTimeoutMs?: number;
  /** Time to spend shrinking a failing sequence. @default 120000 */
  readonly shrinkBudgetMs?: number;
  /** Objects are named `<prefix>-<n>`, a fresh one for every run. @default 'state' */
  readonly namePrefix?: string;
  /** Progress lines (every 50 steps, shrinking). */
  readonly log?: (line: string) => void;
}

/** How a run went. */
export interface StateTestReport {
  readonly seed: number;
  readonly steps: number;
  readonly counts: Readonly<Record<Step['kind'], number>>;
  readonly durationMs: number;
  /** Mean time to converge and go quiet, by step kind. */
  readonly meanMs: Readonly<Record<Step['kind'], number>>;
  /** Mean time until the oracle and `ready` first held after a write (the rest of a step is the quiet wait). */
  readonly meanConvergedMs: number;
}

/** What went wrong at one step. */
export interface StepFailure {
  readonly kind: 'refused' | 'accepted' | 'unnamed' | 'changed' | 'ready' | 'oracle' | 'noisy' | 'rewrote';
  readonly detail: string;
}

/** A failed state test: the seed, the failing step, and the shrunk sequence that still fails. */
export class StateTestFailure extends Error {
  constructor(
    message: string,
    readonly seed: number,
    readonly stepIndex: number,
    readonly failure: StepFailure,
    readonly reproduction: readonly Step<unknown>[],
  ) {
    super(message);
    this.name = 'StateTestFailure';
  }
}

const FAILURE_WORDS: Readonly<Record<StepFailure['kind'], string>> = {
  refused: 'the API server refused a valid spec',
  accepted: 'the API server accepted an invalid spec',
  unnamed: 'the refusal does not name the field',
  changed: 'a refused write changed the stored spec',
  ready: 'the status never said the generation was done',
  oracle: 'the operands never matched the spec',
  noisy: 'the operator never went quiet',
  rewrote: 'respelling the spec rewrote owned objects',
};

/**
 * Whether a refusal names the field: as written (`spec.config.hz`), or with its last segment as the map key
 * the API server shows in brackets (`spec.config[hz]`, how it names a rule on a map's values).
 */
export function namesField(message: string, field: string): boolean {
  const dot = field.lastIndexOf('.');
  return (
    message.includes(field) ||
    (dot > 0 && message.includes(`${field.slice(0, dot)}[${field.slice(dot + 1)}]`))
  );
}

function envNumber(name: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, not ${text}`);
  return value;
}

/**
 * Replaces the object's spec, reading it again after a conflict with the operator's own writes (its status,
 * its finalizer), and answers the object as stored.
 */
export async function replaceSpec<Spec, Status = unknown>(
  rest: KubeRest,
  path: string,
  spec: Spec,
): Promise<LiveObject<Spec, Status>> {
  for (;;) {
    const live = await rest.request<LiveObject<Spec, Status>>('GET', path);
    try {
      return await rest.request<LiveObject<Spec, Status>>('PUT', path, { body: { ...live, spec } });
    } catch (error) {
      if (!(error instanceof KubeApiError && error.status === 409)) throw error;
    }
  }
}

/**
 * Drives one live object through generated steps and checks, after each, that the operator converged: the
 * oracle holds, `ready` holds, and no write to the object or what it owns is seen for `settleMs`. Invalid
 * steps must be refused with a message naming the field, leaving the stored spec as it was. On failure the
 * sequence up to the failing step is shrunk and a `StateTestFailure` thrown with the seed and a reproduction.
 */
export async function runStateTest<Spec, Status>(
  options: StateTestOptions<Spec, Status>,
): Promise<StateTestReport> {
  const seed = envNumber('STATE_SEED') ?? options.seed ?? 20261123;
  const count = envNumber('STATE_STEPS') ?? options.steps ?? 50;
  const settleMs = options.settleMs ?? 400;
  const stepTimeoutMs = options.stepTimeoutMs ?? 30_000;
  const log = options.log ?? (() => {});
  const { group, names } = options.crd.spec;
  const version = options.version ?? options.crd.spec.versions.find((v) => v.storage)?.name ?? '';
  const custom: ResourceType = { apiVersion: `${group}/${version}`, plural: names.plural };
  const collection = collectionPath(custom, options.namespace);
  const rest = options.rest;

  const pinned = options.specs?.map(
    (spec, i): Step<Spec> => ({ kind: 'change', field: 'spec', description: `pinned spec ${i}`, spec }),
  );
  const steps =
    pinned ??
    generateSteps<Spec>(
      {
        schema: specSchemaOf(options.crd, version),
        initial: options.initial,
        seed,
        ...(options.hints ? { hints: options.hints } : {}),
        ...(options.admissible ? { admissible: options.admissible } : {}),
        ...(options.mix ? { mix: options.mix } : {}),
      },
      count,
    );
  const watch = new WriteWatch(rest, options.namespace, custom, options.owned);
  let runs = 0;

  const get = (name: string) => rest.request<LiveObject<Spec, Status>>('GET', `${collection}/${name}`);

  const write = (name: string, spec: Spec) => replaceSpec<Spec, Status>(rest, `${collection}/${name}`, spec);

  /** For the report: how long after each write the oracle and `ready` first held (before going quiet). */
  const converged: number[] = [];

  /** Waits until the oracle and `ready` hold and nothing has been written for `settleMs`. */
  const converge = async (name: string, written: Spec): Promise<StepFailure | undefined> => {
    const { failure, heldAfterMs } = await awaitConvergence({
      rest,
      namespace: options.namespace,
      path: `${collection}/${name}`,
      watch,
      oracle: options.oracle,
      ready: options.ready,
      written,
      settleMs,
      timeoutMs: stepTimeoutMs,
    });
    if (heldAfterMs !== undefined) converged.push(heldAfterMs);
    return failure;
  };

  /** One run on a fresh object: the failing step's index and what failed, or undefined when all passed. */
  const run = async (
    sequence: readonly Step<Spec>[],
    timings?: Record<Step['kind'], number[]>,
    progress = false,
  ): Promise<{ index: number; failure: StepFailure } | undefined> => {
    const name = `${options.namePrefix ?? 'state'}-${++runs}`;
    const created = await rest.request<LiveObject<Spec, Status>>('POST', collection, {
      body: {
        apiVersion: custom.apiVersion,
        kind: names.kind,
        metadata: { name, namespace: options.namespace },
        spec: options.initial,
      },
    });
    watch.track({ name, uid: created.metadata.uid });
    try {
      const initial = await converge(name, options.initial);
      if (initial) return { index: -1, failure: initial };
      let last = options.initial;
      for (const [index, step] of sequence.entries()) {
        const started = Date.now();
        const failure = step.kind === 'invalid' ? await refused(name, step) : await applied(name, step, last);
        if (failure) return { index, failure };
        if (step.kind !== 'invalid') last = step.spec;
        timings?.[step.kind].push(Date.now() - started);
        if (progress && (index + 1) % 50 === 0) log(`state test: ${index + 1} of ${sequence.length} steps`);
      }
      return undefined;
    } finally {
      await rest.request('DELETE', `${collection}/${name}`).catch(() => {});
    }
  };

  const refused = async (name: string, step: Step<Spec>): Promise<StepFailure | undefined> => {
    const before = await get(name);
    try {
      await write(name, step.spec);
      return { kind: 'accepted', detail: step.description };
    } catch (error) {
      if (!(error instanceof KubeApiError) || error.status < 400 || error.status >= 500) throw error;
      if (!namesField(error.message, step.field))
        return { kind: 'unnamed', detail: `${step.field}: ${error.message}` };
    }
    const after = await get(name);
    return jsonEqual(after.spec, before.spec)
      ? undefined
      : { kind: 'changed', detail: JSON.stringify(after.spec) };
  };

  const applied = async (name: string, step: Step<Spec>, last: Spec): Promise<StepFailure | undefined> => {
    const generations = watch.ownedGenerations();
    try {
      await write(name, step.spec);
    } catch (error) {
      if (error instanceof KubeApiError && error.status >= 400 && error.status < 500) {
        return { kind: 'refused', detail: error.message };
      }
      throw error;
    }
    const failure = await converge(name, step.spec);
    if (failure || step.kind !== 'respell' || !jsonEqual(step.respells, last)) return failure;
    const rewritten = [...watch.ownedGenerations()].filter(
      ([key, g]) => generations.has(key) && generations.get(key) !== g,
    );
    return rewritten.length > 0
      ? { kind: 'rewrote', detail: rewritten.map(([key, g]) => `${key} to generation ${g}`).join(', ') }
      : undefined;
  };

  const timings: Record<Step['kind'], number[]> = { change: [], respell: [], invalid: [] };
  const started = Date.now();
  try {
    const result = await run(steps, timings, true);
    if (result) {
      const failing = steps.slice(0, result.index + 1);
      const same = (r: { failure: StepFailure } | undefined) => r?.failure.kind === result.failure.kind;
      const budgetEnds = Date.now() + (options.shrinkBudgetMs ?? 120_000);
      log(
        `state test: step ${result.index} failed (${result.failure.kind}); shrinking ${failing.length} steps`,
      );
      const shrunk =
        result.index < 0
          ? []
          : await shrinkSequence(
              failing,
              async (candidate) => same(await run(candidate)),
              () => Date.now() < budgetEnds,
            );
      const failedStep =
        result.index < 0
          ? 'creating the object'
          : `step ${result.index} of ${steps.length} (${steps[result.index]?.kind} ${steps[result.index]?.description})`;
      const lines = [
        `state test failed with seed ${seed} at ${failedStep}: ${FAILURE_WORDS[result.failure.kind]}`,
        `  ${result.failure.detail}`,
        `replay: STATE_SEED=${seed} STATE_STEPS=${result.index + 1}`,
        `reproduction (${shrunk.length} of ${failing.length} steps still fail):`,
        `  create  ${JSON.stringify(options.initial)}`,
        ...shrunk.map((s) => `  ${s.kind.padEnd(7)} ${JSON.stringify(s.spec)}   # ${s.description}`),
      ];
      throw new StateTestFailure(lines.join('\n'), seed, result.index, result.failure, shrunk);
    }
  } finally {
    await watch.stop();
  }
  const mean = (xs: number[]) => (xs.length ? Math.round(xs.reduce((a, b) => a + b, 0) / xs.length) : 0);
  return {
    seed,
    steps: steps.length,
    counts: {
      change: timings.change.length,
      respell: timings.respell.length,
      invalid: timings.invalid.length,
    },
    durationMs: Date.now() - started,
    meanMs: { change: mean(timings.change), respell: mean(timings.respell), invalid: mean(timings.invalid) },
    meanConvergedMs: mean(converged),
  };
}
