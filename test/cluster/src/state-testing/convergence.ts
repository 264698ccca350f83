import type { KubeRest } from '../kube/rest.js';
import type { LiveObject, Oracle, Readiness, StepFailure } from './runner.js';
import type { SeenWrite, WriteWatch } from './write-watch.js';

/** What convergence of one object is judged by: the author's oracle and readiness, and the writes seen. */
export interface ConvergenceCheck<Spec, Status> {
  readonly rest: KubeRest;
  readonly namespace: string;
  /** The object's path, e.g. `/apis/cache.example.com/v1beta1/namespaces/ns/memcacheds/m`. */
  readonly path: string;
  readonly watch: WriteWatch;
  readonly oracle: Oracle<Spec, Status>;
  readonly ready: Readiness<Spec, Status>;
  /** The spec last written (the oracle may compare it with the stored, defaulted one). */
  readonly written: Spec;
  readonly settleMs: number;
  readonly timeoutMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function describeWrites(writes: readonly SeenWrite[], since: number): string {
  return writes.map((w) => `+${w.at - since} ms ${w.object} by ${w.by}`).join('; ');
}

/**
 * Waits until `ready` and the oracle hold and nothing has been written to the object or what it owns for
 * `settleMs`. Resolves with undefined and how long until the oracle first held, or with what still failed
 * at the deadline.
 */
export async function awaitConvergence<Spec, Status>(
  check: ConvergenceCheck<Spec, Status>,
): Promise<{ failure?: StepFailure; heldAfterMs?: number }> {
  const { settleMs, watch } = check;
  const started = Date.now();
  const deadline = started + check.timeoutMs;
  let failure: StepFailure = { kind: 'ready', detail: 'not checked yet' };
  let heldAfter: number | undefined;
  for (;;) {
    const object = await check.rest.request<LiveObject<Spec, Status>>('GET', check.path);
    if (!check.ready(object.status, object.metadata.generation, object)) {
      failure = {
        kind: 'ready',
        detail: `generation ${object.metadata.generation}, status ${JSON.stringify(object.status)}`,
      };
    } else {
      const problems = await check.oracle({
        spec: object.spec,
        written: check.written,
        object,
        rest: check.rest,
        namespace: check.namespace,
      });
      if (problems.length > 0) failure = { kind: 'oracle', detail: problems.join('; ') };
      else {
        heldAfter ??= Date.now() - started;
        const quietFor = Date.now() - watch.lastWrite;
        if (quietFor >= settleMs) return { heldAfterMs: heldAfter };
        const since = Date.now() - settleMs;
        failure = {
          kind: 'noisy',
          detail: `writes in the last ${settleMs} ms: ${describeWrites(watch.writesSince(since), since)}`,
        };
        if (Date.now() > deadline) return { failure };
        await sleep(settleMs - quietFor);
        continue;
      }
    }
    if (Date.now() > deadline) return { failure };
    await sleep(50);
  }
}
