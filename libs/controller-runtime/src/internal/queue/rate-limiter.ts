import { type Clock, realClock } from './clock.js';

/** Decides how long a key waits before it is retried (client-go's `workqueue.TypedRateLimiter`). */
export interface RateLimiter {
  /** Records one more failure of `key` and returns how many milliseconds it should wait before its retry. */
  when(key: string): number;
  /** Clears `key`'s failure history, typically after it was processed successfully. */
  forget(key: string): void;
  /** How many failures of `key` are currently remembered. */
  numRequeues(key: string): number;
}

/**
 * Per-key exponential back-off: `baseMs * 2^failures`, capped at `maxMs`. Keys back off independently, so one
 * object that keeps failing does not slow down the others.
 */
export class ItemExponentialRateLimiter implements RateLimiter {
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #failures = new Map<string, number>();

  /** Defaults are client-go's and controller-runtime's: 5 ms doubling up to 1000 s. */
  constructor(options: { baseMs?: number; maxMs?: number } = {}) {
    this.#baseMs = options.baseMs ?? 5;
    this.#maxMs = options.maxMs ?? 1_000_000;
  }

  when(key: string): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    // 2^failures overflows to Infinity eventually; the cap keeps the result finite.
    return Math.min(this.#baseMs * 2 ** failures, this.#maxMs);
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.#failures.get(key) ?? 0;
  }
}

/**
 * Overall token bucket (Go's `rate.Limiter` as client-go uses it): `burst` retries pass at once, then they are
 * spaced `1/qps` apart. It protects the API server from a storm of retries across all keys, and tracks no
 * per-key state, so `forget` and `numRequeues` are no-ops.
 */
export class BucketRateLimiter implements RateLimiter {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #last: number;

  /** Defaults are client-go's: 10 per second, burst of 100. */
  constructor(options: { qps?: number; burst?: number; clock?: Clock } = {}) {
    this.#qps = options.qps ?? 10;
    this.#burst = options.burst ?? 100;
    this.#clock = options.clock ?? realClock;
    this.#tokens = this.#burst;
    this.#last = this.#clock.now();
  }

  when(): number {
    const now = this.#clock.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) / 1000) * this.#qps);
    this.#last = now;
    // Like rate.Limiter.Reserve: the token is taken now even if it is not there yet (the balance goes negative),
    // and the caller waits until the bucket would have refilled it.
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens / this.#qps) * 1000;
  }

  forget(): void {}

  numRequeues(): number {
    return 0;
  }
}

/** The longest delay any of its limiters asks for (client-go's `MaxOfRateLimiter`). Every limiter is consulted. */
export class MaxOfRateLimiter implements RateLimiter {
  readonly #limiters: readonly RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.#limiters = limiters;
  }

  when(key: string): number {
    // Every limiter is asked (no early exit): each one must record the failure for its own back-off.
    return this.#limiters.reduce((longest, limiter) => Math.max(longest, limiter.when(key)), 0);
  }

  forget(key: string): void {
    for (const limiter of this.#limiters) limiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.#limiters.reduce((most, limiter) => Math.max(most, limiter.numRequeues(key)), 0);
  }
}

/**
 * The limiter controllers get by default: per-key exponential back-off from 5 ms to 1000 s. This is
 * controller-runtime's priority-queue default; client-go's older default also wraps an overall 10 qps bucket
 * ({@link MaxOfRateLimiter} of both), which lets one burst of failures delay retries of unrelated keys.
 */
export function defaultControllerRateLimiter(): RateLimiter {
  return new ItemExponentialRateLimiter({ baseMs: 5, maxMs: 1_000_000 });
}
