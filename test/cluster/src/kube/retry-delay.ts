// The kit's own pacing of a list-watch loop that failed. The kit's REST client is an oracle independent of the
// runtime under test, so it keeps its own copy of client-go's reflector schedule rather than the runtime's.

const FIRST_DELAY_MS = 800;
const LONGEST_DELAY_MS = 30_000;
/** A watch that ended sooner than this after it opened, having seen no event, is counted as a failure. */
const SHORT_WATCH_MS = 1_000;

/** Delays that double from 800 ms up to 30 s, each stretched by a random factor between 1 and 2. */
export class RetryDelay {
  #step = 0;

  /** How long to wait before the next attempt, one failure further along. */
  next(): number {
    this.#step = this.#step === 0 ? FIRST_DELAY_MS : Math.min(this.#step * 2, LONGEST_DELAY_MS);
    return this.#step * (1 + Math.random());
  }

  /** After an attempt that worked: the next failure waits the first delay again. */
  reset(): void {
    this.#step = 0;
  }
}

/** Whether a watch opened at `openedAt` (`performance.now()`) ended too soon: within 1 s and without an event. */
export function endedTooSoon(openedAt: number, events: number): boolean {
  return events === 0 && performance.now() - openedAt < SHORT_WATCH_MS;
}
