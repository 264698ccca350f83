import { ApiError, ConnectionError, isTransient } from '../../errors/errors.js';
import { Backoff, sleep } from './backoff.js';

/** One wait of {@link retryTransient}: what failed, why, and when it is tried again. */
export interface TransientFailure {
  /** The call, e.g. `discovery of ConfigMap (v1)`. */
  readonly operation: string;
  readonly error: Error;
  /** Failed attempts so far, 1 at the first. */
  readonly attempt: number;
  readonly retryInMs: number;
}

export interface RetryTransientOptions {
  /** Retrying stops when it aborts; the last error is thrown. */
  readonly signal: AbortSignal;
  /** @default the reflector's: 800 ms → 30 s, ×2, full jitter */
  readonly backoff?: Backoff;
  readonly onRetry?: (failure: TransientFailure) => void;
}

/**
 * The start-up policy for calls an operator cannot run without (discovery, REST mapping): `attempt` is repeated
 * with capped, jittered back-off while it fails with a transient error (see `isTransient`: 429, 5xx, refused or
 * reset connections, timeouts), as controller-runtime waits for an API server that is still starting. A
 * permanent error is thrown at once; so is the last error once `signal` aborts.
 */
export async function retryTransient<T>(
  operation: string,
  attempt: () => Promise<T>,
  options: RetryTransientOptions,
): Promise<T> {
  const backoff = options.backoff ?? new Backoff();
  for (let failures = 1; ; failures++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isTransient(error) || options.signal.aborted) throw error;
      const retryInMs = Math.round(backoff.next());
      options.onRetry?.({ operation, error: error as Error, attempt: failures, retryInMs });
      await sleep(retryInMs, options.signal);
      if (options.signal.aborted) throw error;
    }
  }
}

/** A short reason for a log line: `503 ServiceUnavailable`, `ECONNRESET`, or the error's message. */
export function failureReason(error: Error): string {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof ApiError) return `${e.status} ${e.reason}`.trim();
    if (e instanceof ConnectionError) {
      const code = (e.cause as { code?: unknown } | undefined)?.code;
      if (typeof code === 'string') return code;
    }
  }
  return error.message;
}

/** Operations remembered at most; a process has a few per watched kind. */
const MAX_OPERATIONS = 1_000;

/**
 * Which retries are worth a log line: the first of an operation, each change of its reason, and otherwise one
 * per `intervalMs` — an API server down for an hour costs a few lines per operation, not one per attempt.
 */
export class RetryLogGate {
  readonly #last = new Map<string, { readonly reason: string; readonly at: number }>();
  readonly #intervalMs: number;

  constructor(intervalMs = 30_000) {
    this.#intervalMs = intervalMs;
  }

  /** Whether to log this retry of `operation` for `reason`. */
  admit(operation: string, reason: string, now = Date.now()): boolean {
    const last = this.#last.get(operation);
    if (last && last.reason === reason && now - last.at < this.#intervalMs) return false;
    this.#last.delete(operation);
    if (this.#last.size >= MAX_OPERATIONS) {
      const oldest = this.#last.keys().next().value;
      if (oldest !== undefined) this.#last.delete(oldest);
    }
    this.#last.set(operation, { reason, at: now });
    return true;
  }
}
