export interface BackoffOptions {
  /** The first delay. @default 800 */
  readonly initialMs?: number;
  /** The doubling stops here. @default 30000 */
  readonly maxMs?: number;
  /** A failure after this long without one starts over from `initialMs`. @default 120000 */
  readonly resetAfterMs?: number;
  /** Each delay is d to d × (1 + jitter), as client-go's `wait.Jitter`. @default 1 */
  readonly jitter?: number;
}

/**
 * Exponential back-off with jitter, reset after a quiet period or by {@link Backoff.reset}: client-go's
 * reflector defaults (800 ms → 30 s, ×2, jitter 1.0, reset after 2 min without failure).
 */
export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #resetAfterMs: number;
  readonly #jitter: number;
  #current = 0;
  #lastFailure = 0;

  constructor({ initialMs = 800, maxMs = 30_000, resetAfterMs = 120_000, jitter = 1 }: BackoffOptions = {}) {
    this.#initialMs = initialMs;
    this.#maxMs = maxMs;
    this.#resetAfterMs = resetAfterMs;
    this.#jitter = jitter;
  }

  /** The delay before the next attempt after a failure. */
  next(now = Date.now()): number {
    if (now - this.#lastFailure > this.#resetAfterMs) this.#current = 0;
    this.#lastFailure = now;
    this.#current = this.#current === 0 ? this.#initialMs : Math.min(this.#maxMs, this.#current * 2);
    // Jitter 1.0 waits between d and 2d, so many informers do not retry in lock-step.
    return this.#current * (1 + Math.random() * this.#jitter);
  }

  /** Starts over from the initial delay at the next failure (after an attempt that worked). */
  reset(): void {
    this.#current = 0;
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * A watch that ends sooner than this after it was opened, without a single event (bookmarks count), did not
 * work: the server or a proxy accepts watches and ends them at once. Reopening it at once would ask again many
 * times a second, so a list-watch loop counts it as a failure and backs off (client-go: "very short watch").
 */
export const SHORT_WATCH_MS = 1_000;

/** Whether a watch opened at `openedAt` (`performance.now()`) that saw `events` events was a short one. */
export function isShortWatch(openedAt: number, events: number, now = performance.now()): boolean {
  return events === 0 && now - openedAt < SHORT_WATCH_MS;
}
