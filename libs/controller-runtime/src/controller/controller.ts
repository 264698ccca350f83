import { randomUUID } from 'node:crypto';
import type { Reader } from '../client/options.js';
import { isConflict, isTransient } from '../errors/errors.js';
import type { MapFunc } from '../handler/handlers.js';
import type { Informer, InformerHandler } from '../internal/cache/informer.js';
import type { Cache } from '../internal/cache/informer-cache.js';
import {
  defaultControllerRateLimiter,
  prometheusQueueMetrics,
  type RateLimiter,
  WorkQueue,
} from '../internal/queue/index.js';
import { sleep } from '../internal/retry/backoff.js';
import { type Logger, withLogContext } from '../log/index.js';
import type { RuntimeMetrics } from '../metrics/runtime-metrics.js';
import type { Kind, KubeObject, Stored } from '../object.js';
import { type Predicate, passes } from '../predicate/predicates.js';
import {
  isTerminalError,
  LOW_PRIORITY,
  type Reconciler,
  type Request,
  type Result,
  requestFromKey,
  requestKey,
} from '../reconcile/reconcile.js';

/** What `promise` resolves to, or undefined once `signal` aborts first (its rejection is then ignored). */
async function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) {
    promise.catch(() => {});
    return undefined;
  }
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
    promise.catch(() => {});
  }
}

export interface ControllerOptions {
  /** Unique name: the `controller` label of every metric and log line. */
  readonly name: string;
  /**
   * Reconciles running at once (never two for the same key).
   * @default 1
   */
  readonly maxConcurrentReconciles?: number;
  /** Abort and count a reconcile that runs longer than this; it is retried with back-off. Off by default. */
  readonly reconcileTimeoutMs?: number;
  /**
   * How long the first lists may take. Waiting goes on past it while every informer still waiting fails only
   * with transient errors (the API server is not ready); otherwise the controller fails, naming why.
   * @default 120000
   */
  readonly cacheSyncTimeoutMs?: number;
  /** @default per-item exponential 5 ms → 1000 s */
  readonly rateLimiter?: RateLimiter;
}

/** One event source of a controller: a kind, how its objects map to requests, and filters. */
export interface WatchSpec {
  readonly type: Kind;
  readonly map: MapFunc;
  readonly predicates: readonly Predicate[];
}

export interface ControllerDependencies {
  readonly cache: Cache;
  readonly metrics: RuntimeMetrics;
  readonly logger: Logger;
}

/** Raised when a reconcile exceeds `reconcileTimeoutMs`. */
export class ReconcileTimeoutError extends Error {
  readonly code = 'RUNTIME_RECONCILE_TIMEOUT';
}

/** Raised when a reconciler resolves with something that is not a Result. */
export class InvalidResultError extends Error {
  readonly code = 'RUNTIME_INVALID_RESULT';
}

function isProgrammingError(error: unknown): boolean {
  return (
    !(error instanceof Error) ||
    error instanceof TypeError ||
    error instanceof ReferenceError ||
    error instanceof RangeError ||
    error instanceof SyntaxError
  );
}

function validResult(value: unknown): Result {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidResultError(
      `reconcile returned ${JSON.stringify(value)}, expected { requeueAfterMs? } or nothing`,
    );
  }
  const { requeueAfterMs, priority } = value as Result;
  if (
    requeueAfterMs !== undefined &&
    (typeof requeueAfterMs !== 'number' || !Number.isFinite(requeueAfterMs) || requeueAfterMs < 0)
  ) {
    throw new InvalidResultError(`reconcile returned requeueAfterMs ${JSON.stringify(requeueAfterMs)}`);
  }
  if (priority !== undefined && !Number.isFinite(priority)) {
    throw new InvalidResultError(`reconcile returned priority ${JSON.stringify(priority)}`);
  }
  return value as Result;
}

/**
 * A controller: watches turn events into keys on a de-duplicating, rate-limited queue; workers take keys and
 * run the reconciler with controller-runtime's result semantics. Whatever a reconciler does — throw, return
 * garbage, hang — is caught, counted and retried with back-off; it never takes the process down.
 */
export class Controller {
  readonly name: string;
  readonly queue: WorkQueue;
  readonly #o: ControllerOptions;
  readonly #reconciler: Reconciler;
  readonly #deps: ControllerDependencies;
  readonly #watches: WatchSpec[] = [];
  #started = false;

  constructor(options: ControllerOptions, reconciler: Reconciler, deps: ControllerDependencies) {
    this.name = options.name;
    this.#o = options;
    this.#reconciler = reconciler;
    this.#deps = deps;
    this.queue = new WorkQueue({
      name: options.name,
      rateLimiter: options.rateLimiter ?? defaultControllerRateLimiter(),
      metrics: prometheusQueueMetrics(deps.metrics, options.name),
    });
    deps.metrics.registerController(options.name, this.#concurrency);
  }

  get #concurrency(): number {
    return Math.max(1, this.#o.maxConcurrentReconciles ?? 1);
  }

  /** Adds an event source; only before start. */
  watch(spec: WatchSpec): void {
    if (this.#started) throw new Error(`controller ${this.name}: watches must be added before it starts`);
    this.#watches.push(spec);
  }

  /** Controllers reconcile only on the leader. */
  get needLeaderElection(): boolean {
    return true;
  }

  #enqueue(requests: Iterable<Request>, priority: number): void {
    for (const r of requests) this.queue.add(requestKey(r), { priority });
  }

  #handlerFor(spec: WatchSpec, log: Logger): InformerHandler<Stored<KubeObject>> {
    const { predicates } = spec;
    const cache: Reader = this.#deps.cache;
    const map = (obj: Stored<KubeObject>) => spec.map(obj, cache);
    // A map function that reads the cache answers later: queue what it resolves to, log what it rejects with.
    const enqueueLater = (mapped: Promise<readonly Request[]>[], priority: number) =>
      void Promise.all(mapped).then(
        (lists) => this.#enqueue(lists.flat(), priority),
        (error: unknown) =>
          log.error('a watch map function failed; the event queues nothing', error, {
            kind: spec.type.kind,
          }),
      );
    return {
      onAdd: (obj, initial) => {
        if (!passes(predicates, 'create', obj)) return;
        const mapped = map(obj);
        const priority = initial ? LOW_PRIORITY : 0;
        if (mapped instanceof Promise) enqueueLater([mapped], priority);
        else this.#enqueue(mapped, priority);
      },
      onUpdate: (oldObj, newObj) => {
        if (!passes(predicates, 'update', oldObj, newObj)) return;
        const resync = oldObj.metadata.resourceVersion === newObj.metadata.resourceVersion;
        const priority = resync ? LOW_PRIORITY : 0;
        const before = map(oldObj);
        const after = map(newObj);
        if (before instanceof Promise || after instanceof Promise) {
          enqueueLater([Promise.resolve(before), Promise.resolve(after)], priority);
          return;
        }
        const requests = new Map<string, Request>();
        for (const r of [...before, ...after]) requests.set(requestKey(r), r);
        this.#enqueue(requests.values(), priority);
      },
      onDelete: (obj) => {
        if (!passes(predicates, 'delete', obj)) return;
        const mapped = map(obj);
        if (mapped instanceof Promise) enqueueLater([mapped], 0);
        else this.#enqueue(mapped, 0);
      },
    };
  }

  /** Runs until `signal` aborts; then finishes the reconciles in flight and returns. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new Error(`controller ${this.name} was already started`);
    this.#started = true;
    const log = this.#deps.logger.child({ controller: this.name });
    // The cache waits out an API server that is not ready yet; a stop meanwhile ends the wait.
    const informers = await untilAborted(
      Promise.all(this.#watches.map((w) => this.#deps.cache.informerFor(w.type))),
      signal,
    );
    if (!informers) return;
    for (const [i, informer] of informers.entries()) {
      const watch = this.#watches[i];
      if (watch) informer.addHandler(this.#handlerFor(watch, log));
    }
    if (!(await this.#waitForSync(informers, signal, log))) return;
    log.info('starting workers', { workers: this.#concurrency });
    const workers = Array.from({ length: this.#concurrency }, () => this.#work(signal));
    // Stop handing out keys; the workers finish the reconciles they are in and then return.
    const stop = () => this.queue.shutDown();
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    await Promise.all(workers);
    log.info('all workers finished');
  }

  /**
   * Waits for the first lists: false when `signal` aborted first. Past the sync timeout it goes on waiting
   * while every informer still waiting fails with transient errors only, and fails otherwise, naming them.
   */
  async #waitForSync(
    informers: readonly Informer<Stored<KubeObject>>[],
    signal: AbortSignal,
    log: Logger,
  ): Promise<boolean> {
    const timeoutMs = this.#o.cacheSyncTimeoutMs ?? 120_000;
    const synced = Promise.all(informers.map((i) => i.waitForSync())).then(() => true);
    for (;;) {
      const waited = new AbortController();
      const done = await Promise.race([
        synced,
        sleep(timeoutMs, AbortSignal.any([signal, waited.signal])).then(() => false),
      ]);
      waited.abort();
      if (done) return true;
      if (signal.aborted) return false;
      const waiting = informers.filter((i) => !i.hasSynced);
      if (waiting.length === 0) continue;
      const why = waiting.map((i) => `${i.type.kind}: ${i.lastSyncError?.message ?? 'no list has finished'}`);
      if (waiting.every((i) => isTransient(i.lastSyncError))) {
        log.info('caches not synced yet: the API server is unavailable; waiting', { timeoutMs, why });
        continue;
      }
      throw new Error(
        `controller ${this.name}: caches did not sync within ${timeoutMs} ms (${why.join('; ')})`,
      );
    }
  }

  async #work(signal: AbortSignal): Promise<void> {
    for (;;) {
      const item = await this.queue.get();
      if (!item) return;
      try {
        await this.#reconcileHandler(item.key, signal);
      } finally {
        this.queue.done(item.key);
      }
    }
  }

  async #reconcileHandler(key: string, managerSignal: AbortSignal): Promise<void> {
    const { metrics } = this.#deps;
    const controller = this.name;
    const request = requestFromKey(key);
    const reconcileID = randomUUID();
    const log = this.#deps.logger.child({
      controller,
      namespace: request.namespace,
      name: request.name,
      reconcileID,
    });
    const abort = new AbortController();
    const onManagerAbort = () => abort.abort(managerSignal.reason);
    managerSignal.addEventListener('abort', onManagerAbort, { once: true });
    metrics.activeWorkers.inc({ controller });
    const end = metrics.reconcileTime.startTimer({ controller });
    let result: Result | undefined;
    let failure: unknown;
    let timer: NodeJS.Timeout | undefined;
    try {
      const run = withLogContext(
        { controller, namespace: request.namespace, name: request.name, reconcileID },
        () => this.#reconciler(request, { signal: abort.signal, reconcileID, controller }),
      );
      const timeoutMs = this.#o.reconcileTimeoutMs;
      const outcome = timeoutMs
        ? Promise.race([
            run,
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => {
                const error = new ReconcileTimeoutError(`reconcile did not finish within ${timeoutMs} ms`);
                abort.abort(error);
                reject(error);
              }, timeoutMs);
            }),
          ])
        : run;
      result = validResult(await outcome);
    } catch (error) {
      failure = error;
    } finally {
      clearTimeout(timer);
      managerSignal.removeEventListener('abort', onManagerAbort);
      end();
      metrics.activeWorkers.dec({ controller });
    }

    if (failure !== undefined && isConflict(failure)) {
      // Someone wrote the object since we read it: a normal race, retried with back-off, not an error storm.
      metrics.reconcileTotal.inc({ controller, result: 'requeue' });
      this.queue.add(key, { rateLimited: true });
      log.debug('conflict; retrying with the latest version', { error: (failure as Error).message });
      return;
    }
    if (failure !== undefined) {
      metrics.reconcileErrors.inc({ controller });
      metrics.reconcileTotal.inc({ controller, result: 'error' });
      if (failure instanceof ReconcileTimeoutError) metrics.reconcileTimeouts.inc({ controller });
      if (isProgrammingError(failure)) metrics.reconcilePanics.inc({ controller });
      const error = failure instanceof Error ? failure : new Error(`reconcile threw ${String(failure)}`);
      if (isTerminalError(error)) {
        metrics.terminalReconcileErrors.inc({ controller });
        this.queue.forget(key);
        log.error('reconciler error (terminal, not retried)', error);
      } else {
        this.queue.add(key, { rateLimited: true });
        log.error('reconciler error', error, { retries: this.queue.numRequeues(key) });
      }
      return;
    }
    const after = result?.requeueAfterMs ?? 0;
    this.queue.forget(key);
    if (after > 0) {
      this.queue.add(key, { afterMs: after, priority: result?.priority });
      metrics.reconcileTotal.inc({ controller, result: 'requeue_after' });
    } else {
      metrics.reconcileTotal.inc({ controller, result: 'success' });
    }
  }
}
