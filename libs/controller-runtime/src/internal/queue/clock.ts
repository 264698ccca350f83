/**
 * Time as the work queue and rate limiters see it. Injected so tests can drive delays deterministically
 * instead of sleeping.
 */
export interface Clock {
  /** Monotonic milliseconds. Only differences are meaningful. */
  now(): number;
  /** Calls `fn` once, after at least `ms` milliseconds. Returns a handle for {@link Clock.clearTimeout}. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a timer; unknown or already fired handles are ignored. */
  clearTimeout(handle: unknown): void;
}

/**
 * The process clock. `performance.now()` rather than `Date.now()`: it is monotonic, so a wall-clock step (NTP,
 * manual change) can neither fire a requeue early nor postpone it by hours.
 */
export const realClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

interface FakeTimer {
  readonly at: number;
  readonly fn: () => void;
}

/** A clock that only moves when told to, for tests. Timers fire synchronously inside {@link FakeClock.advance}. */
export class FakeClock implements Clock {
  #now: number;
  // Ids grow monotonically, so iterating in id order breaks deadline ties by creation order.
  readonly #timers = new Map<number, FakeTimer>();
  #nextId = 1;

  constructor(startMs = 0) {
    this.#now = startMs;
  }

  /** The current fake time in milliseconds. */
  now(): number {
    return this.#now;
  }

  /** Registers a timer due `ms` from now (negative delays count as 0). */
  setTimeout(fn: () => void, ms: number): number {
    const id = this.#nextId++;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), fn });
    return id;
  }

  /** Cancels a timer registered with {@link FakeClock.setTimeout}. */
  clearTimeout(handle: unknown): void {
    if (typeof handle === 'number') this.#timers.delete(handle);
  }

  /** How many timers are registered and not yet fired or cleared. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way, in deadline order, each seeing
   * `now()` equal to its own deadline. Timers scheduled by those callbacks fire too if they fall in the window.
   */
  advance(ms: number): void {
    const target = this.#now + Math.max(0, ms);
    for (let next = this.#nextDue(target); next; next = this.#nextDue(target)) {
      this.#timers.delete(next[0]);
      this.#now = next[1].at;
      next[1].fn();
    }
    this.#now = target;
  }

  #nextDue(limit: number): [number, FakeTimer] | undefined {
    let due: [number, FakeTimer] | undefined;
    for (const entry of this.#timers) {
      if (entry[1].at <= limit && (!due || entry[1].at < due[1].at)) due = entry;
    }
    return due;
  }
}
