// Polling for a state that comes about on its own: for tests, and for benchmarks run outside vitest.
import { setTimeout as sleep } from 'node:timers/promises';

/** Polls until `check` returns a value other than undefined/false, or fails with `what` after the timeout. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  { timeoutMs = 30_000, intervalMs = 200 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`,
      );
    }
    await sleep(intervalMs);
  }
}
