import { type Clock, realClock } from './clock.js';
import { WorkQueueOptionError } from './errors.js';
import { noopQueueMetrics, type UnfinishedWork, type WorkQueueMetrics } from './metrics.js';
import { IndexedHeap } from './priority-heap.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.js';

/** How a key is added. */
export interface AddOptions {
  /** Higher is handed out first. Default 0. Re-adding a waiting key keeps the highest priority asked for. */
  priority?: number;
  /** Milliseconds before the key becomes ready. Re-adding a waiting key keeps the earliest ready time. */
  afterMs?: number;
  /**
   * Delay by the rate limiter's back-off for this key (which counts one more failure). Combined with `afterMs`,
   * the sooner of the two wins, as in controller-runtime.
   */
  rateLimited?: boolean;
}

/** A key handed out by {@link WorkQueue.get}, with the priority it was queued at. */
export interface QueueItem {
  key: string;
  priority: number;
}

/** Options of {@link WorkQueue.get}. */
export interface GetOptions {
  /** Stops waiting: the pending `get` resolves `undefined` and will not take an item. */
  signal?: AbortSignal;
}

/** Options of the {@link WorkQueue} constructor. */
export interface WorkQueueOptions {
  /** The queue's name, usually the controller's. */
  name: string;
  /** Back-off for rate-limited adds. Default {@link defaultControllerRateLimiter}. */
  rateLimiter?: RateLimiter;
  /** Default {@link realClock}. */
  clock?: Clock;
  /** Default: none. */
  metrics?: WorkQueueMetrics;
}

/**
 * Where a waiting key is. `parked`: ready, but the same key is being processed, so it may not be handed out
 * until that finishes.
 */
type EntryState = 'delayed' | 'ready' | 'parked';

/** One waiting key. There is at most one per key: that is the de-duplication. */
interface Entry {
  readonly key: string;
  priority: number;
  /** Clock time at which the entry became (or will become) ready. */
  readyAt: number;
  /** Arrival order: of the add while delayed, then of becoming ready. The FIFO tie-breaker. */
  seq: number;
  state: EntryState;
}

interface Waiter {
  settle(item: QueueItem | undefined): void;
}

const byDeadline = (a: Entry, b: Entry): boolean =>
  a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
const byPriority = (a: Entry, b: Entry): boolean =>
  a.priority > b.priority || (a.priority === b.priority && a.seq < b.seq);

/**
 * A de-duplicating, priority-aware, rate-limited work queue with the semantics of controller-runtime's priority
 * queue and client-go's workqueue:
 *
 * - A key waits at most once; re-adding it keeps the highest priority and the earliest ready time.
 * - A key handed out by {@link WorkQueue.get} is never handed out again before {@link WorkQueue.done}; adds in
 *   the meantime are remembered (de-duplicated as above) and hand it out once more after `done`.
 * - Ready keys come out by priority, highest first, then in the order they became ready.
 * - Delayed keys become ready at their time, driven by a single timer for the earliest deadline.
 *
 * Everything happens synchronously on the event loop, so there is no locking: `get` takes its item at the
 * moment its promise is resolved, and two callers can never be given the same key.
 */
export class WorkQueue {
  /** The queue's name, as given. */
  readonly name: string;

  readonly #rateLimiter: RateLimiter;
  readonly #clock: Clock;
  readonly #metrics: WorkQueueMetrics;

  readonly #entries = new Map<string, Entry>();
  readonly #ready = new IndexedHeap<Entry>(byPriority);
  readonly #delayed = new IndexedHeap<Entry>(byDeadline);
  /** Keys handed out and not yet done, with the time they were handed out. */
  readonly #processing = new Map<string, number>();
  readonly #waiters: Waiter[] = [];
  readonly #drainListeners: Array<() => void> = [];
  #seq = 0;
  #timer: unknown;
  /** Deadline the timer is set for; `undefined` when no timer is set. */
  #timerAt: number | undefined;
  /** `draining`: no more adds, but ready keys are still handed out until none are left or in flight. */
  #state: 'running' | 'draining' | 'shutDown' = 'running';

  constructor(options: WorkQueueOptions) {
    this.name = options.name;
    this.#rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter();
    this.#clock = options.clock ?? realClock;
    this.#metrics = options.metrics ?? noopQueueMetrics;
    this.#metrics.unfinished(() => this.#unfinished());
  }

  /**
   * Queues `key`, or merges into its waiting entry (highest priority, earliest ready time). Ignored once the
   * queue is shut down. Throws {@link WorkQueueOptionError} for a non-finite priority or delay.
   */
  add(key: string, options: AddOptions = {}): void {
    const priority = options.priority ?? 0;
    const afterMs = options.afterMs ?? 0;
    // NaN or Infinity would corrupt the heaps' ordering; better to fail at the call site.
    if (!Number.isFinite(priority)) {
      throw new WorkQueueOptionError(`priority must be a finite number, got ${priority}`);
    }
    if (!Number.isFinite(afterMs)) {
      throw new WorkQueueOptionError(`afterMs must be a finite number, got ${afterMs}`);
    }
    if (this.#state !== 'running') return;

    let delay = Math.max(0, afterMs);
    if (options.rateLimited) {
      const backOff = this.#rateLimiter.when(key);
      delay = delay === 0 ? backOff : Math.min(delay, backOff);
    }
    if (delay > 0) this.#metrics.retry();

    const now = this.#clock.now();
    this.#promoteDue(now);
    const readyAt = now + delay;
    const existing = this.#entries.get(key);
    if (!existing) {
      const entry: Entry = { key, priority, readyAt, seq: ++this.#seq, state: 'delayed' };
      this.#entries.set(key, entry);
      if (delay === 0) this.#makeReady(entry);
      else this.#delayed.push(entry);
    } else {
      if (priority > existing.priority) this.#raisePriority(existing, priority);
      if (existing.state === 'delayed' && readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        if (delay === 0) {
          this.#delayed.remove(existing);
          this.#makeReady(existing);
        } else {
          this.#delayed.fix(existing);
        }
      }
    }
    this.#schedule();
    this.#dispatch();
  }

  /** `add(key, { afterMs, priority })`: ready in `afterMs` milliseconds (requeue-after). */
  addAfter(key: string, afterMs: number, priority?: number): void {
    this.add(key, { afterMs, priority });
  }

  /** `add(key, { rateLimited: true, priority })`: ready after the rate limiter's back-off (retry on error). */
  addRateLimited(key: string, priority?: number): void {
    this.add(key, { rateLimited: true, priority });
  }

  /** Resets `key`'s back-off, typically after it was processed successfully. */
  forget(key: string): void {
    this.#rateLimiter.forget(key);
  }

  /** How many rate-limited retries of `key` the rate limiter remembers. */
  numRequeues(key: string): number {
    return this.#rateLimiter.numRequeues(key);
  }

  /**
   * Waits for a ready key that nobody is processing, marks it as processing and returns it; the caller must
   * call {@link WorkQueue.done} with it. Waiters are served in call order, each with a distinct key. Resolves
   * `undefined` once the queue is shut down (after a drain: once nothing is left to hand out), or when
   * `options.signal` aborts.
   */
  get(options: GetOptions = {}): Promise<QueueItem | undefined> {
    const { signal } = options;
    if (this.#state === 'shutDown' || signal?.aborted) return Promise.resolve(undefined);
    if (this.#state === 'running') {
      this.#promoteDue(this.#clock.now());
      this.#schedule();
    }
    // No waiter can be pending while an item is ready (dispatch pairs them), so this caller is next in line.
    const entry = this.#ready.pop();
    if (entry) return Promise.resolve(this.#take(entry));

    return new Promise((resolve) => {
      const onAbort = (): void => {
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        resolve(undefined);
      };
      const waiter: Waiter = {
        settle: (item) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(item);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /**
   * Marks `key` as processed. If it was added again meanwhile, it becomes available to `get` again (once).
   * Keys that are not being processed are ignored.
   */
  done(key: string): void {
    const startedAt = this.#processing.get(key);
    if (startedAt === undefined) return;
    this.#processing.delete(key);
    this.#metrics.workDurationSeconds((this.#clock.now() - startedAt) / 1000);
    const entry = this.#entries.get(key);
    if (entry?.state === 'parked') {
      entry.state = 'ready';
      this.#ready.push(entry);
    }
    this.#dispatch();
  }

  /** Keys waiting, ready or not (including keys re-added while being processed). */
  len(): number {
    return this.#entries.size;
  }

  /** Keys handed out and not yet done. */
  processing(): number {
    return this.#processing.size;
  }

  /** Whether {@link WorkQueue.shutDown} or {@link WorkQueue.shutDownWithDrain} was called. */
  get isShutDown(): boolean {
    return this.#state !== 'running';
  }

  /**
   * Stops the queue now: later adds are ignored, waiting keys are dropped, and every pending and future `get`
   * resolves `undefined`. Keys in flight may still be marked `done`.
   */
  shutDown(): void {
    if (this.#state === 'shutDown') return;
    this.#state = 'shutDown';
    this.#clearTimer();
    for (const entry of this.#entries.values()) this.#drop(entry);
    this.#ready.clear();
    this.#delayed.clear();
    this.#dispatch();
  }

  /**
   * Stops accepting adds, and resolves once every key handed out has been marked `done`. Until then, keys that
   * are already ready keep being handed out to `get` (including keys re-added while in flight), so workers must
   * keep running; `get` resolves `undefined` once nothing is ready or in flight. Delayed keys are dropped:
   * waiting out a back-off of up to 1000 s would hold shutdown hostage.
   */
  shutDownWithDrain(): Promise<void> {
    const drained = new Promise<void>((resolve) => this.#drainListeners.push(resolve));
    if (this.#state === 'running') {
      this.#state = 'draining';
      this.#clearTimer();
      for (const entry of this.#delayed.clear()) this.#drop(entry);
    }
    this.#dispatch();
    return drained;
  }

  /** Marks a ready entry (new, or delayed and now due); parks it if its key is in flight. */
  #makeReady(entry: Entry): void {
    entry.seq = ++this.#seq;
    this.#metrics.add();
    this.#metrics.depth(entry.priority, 1);
    if (this.#processing.has(entry.key)) {
      entry.state = 'parked';
    } else {
      entry.state = 'ready';
      this.#ready.push(entry);
    }
  }

  #raisePriority(entry: Entry, priority: number): void {
    // Delayed entries are not in the depth gauge yet; they enter it with their final priority.
    if (entry.state !== 'delayed') {
      this.#metrics.depth(entry.priority, -1);
      this.#metrics.depth(priority, 1);
    }
    entry.priority = priority;
    if (entry.state === 'ready') this.#ready.fix(entry);
    // A higher priority keeps its place among equals (seq): it was asked for earlier than later arrivals.
  }

  /** Hands an entry out: from here on its key is in flight and a re-add creates a new entry. */
  #take(entry: Entry): QueueItem {
    const now = this.#clock.now();
    this.#entries.delete(entry.key);
    this.#processing.set(entry.key, now);
    this.#metrics.depth(entry.priority, -1);
    this.#metrics.queueLatencySeconds(Math.max(0, now - entry.readyAt) / 1000);
    return { key: entry.key, priority: entry.priority };
  }

  #drop(entry: Entry): void {
    if (entry.state !== 'delayed') this.#metrics.depth(entry.priority, -1);
    this.#entries.delete(entry.key);
  }

  /** Moves delayed entries whose time has come to ready, earliest deadline first (so they stay FIFO). */
  #promoteDue(now: number): void {
    for (let next = this.#delayed.peek(); next && next.readyAt <= now; next = this.#delayed.peek()) {
      this.#delayed.pop();
      this.#makeReady(next);
    }
  }

  /** Keeps exactly one timer, set for the earliest deadline. */
  #schedule(): void {
    const next = this.#delayed.peek()?.readyAt;
    if (next === this.#timerAt) return;
    this.#clearTimer();
    if (next === undefined) return;
    this.#timerAt = next;
    this.#timer = this.#clock.setTimeout(() => this.#onTimer(), Math.max(0, next - this.#clock.now()));
  }

  #onTimer(): void {
    this.#timer = undefined;
    this.#timerAt = undefined;
    if (this.#state !== 'running') return;
    this.#promoteDue(this.#clock.now());
    // If the timer fired a little early (timers round to whole milliseconds), this re-arms it.
    this.#schedule();
    this.#dispatch();
  }

  #clearTimer(): void {
    if (this.#timerAt === undefined) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = undefined;
  }

  /** Pairs ready entries with waiters, then settles shutdown: releases waiters and drain promises when due. */
  #dispatch(): void {
    while (this.#waiters.length > 0 && this.#ready.size > 0) {
      this.#waiters.shift()!.settle(this.#take(this.#ready.pop()!));
    }
    if (this.#state === 'draining' && this.#ready.size === 0 && this.#processing.size === 0) {
      this.#state = 'shutDown';
    }
    if (this.#state === 'shutDown') {
      for (const waiter of this.#waiters.splice(0)) waiter.settle(undefined);
      if (this.#processing.size === 0) for (const resolve of this.#drainListeners.splice(0)) resolve();
    }
  }

  #unfinished(): UnfinishedWork {
    const now = this.#clock.now();
    let total = 0;
    let longest = 0;
    for (const startedAt of this.#processing.values()) {
      const elapsed = now - startedAt;
      total += elapsed;
      longest = Math.max(longest, elapsed);
    }
    return { unfinishedSeconds: total / 1000, longestRunningSeconds: longest / 1000 };
  }
}
