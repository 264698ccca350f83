import { describe, expect, it } from 'vitest';
import { ApiError, ConnectionError } from '../../errors/errors.js';
import { Backoff } from './backoff.js';
import { failureReason, RetryLogGate, retryTransient, type TransientFailure } from './transient-retry.js';

const unavailable = () =>
  new ApiError(503, 'ServiceUnavailable', 'GET /api/v1: 503 ServiceUnavailable', 'GET', '/api/v1');
const forbidden = () => new ApiError(403, 'Forbidden', 'GET /api/v1: 403 Forbidden', 'GET', '/api/v1');
const fast = () => new Backoff({ initialMs: 1, maxMs: 4 });

/** An attempt that throws the given errors in turn, then answers `done`. */
function failing(...errors: Error[]) {
  let calls = 0;
  const attempt = async () => {
    const error = errors[calls++];
    if (error) throw error;
    return 'done';
  };
  return { attempt, calls: () => calls };
}

describe('retryTransient', () => {
  it('retries transient failures with back-off, reporting each, until the call succeeds', async () => {
    const reset = new ConnectionError('GET /api/v1: socket hang up', {
      cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
    });
    const { attempt, calls } = failing(unavailable(), reset, unavailable());
    const retries: TransientFailure[] = [];
    const signal = new AbortController().signal;

    await expect(
      retryTransient('discovery of ConfigMap (v1)', attempt, {
        signal,
        backoff: fast(),
        onRetry: (f) => retries.push(f),
      }),
    ).resolves.toBe('done');
    expect(calls()).toBe(4);
    expect(retries.map((r) => [r.attempt, failureReason(r.error)])).toEqual([
      [1, '503 ServiceUnavailable'],
      [2, 'ECONNRESET'],
      [3, '503 ServiceUnavailable'],
    ]);
    expect(retries.every((r) => r.operation === 'discovery of ConfigMap (v1)' && r.retryInMs >= 1)).toBe(
      true,
    );
  });

  it('throws a permanent failure at once', async () => {
    const { attempt, calls } = failing(unavailable(), forbidden(), unavailable());
    const signal = new AbortController().signal;

    await expect(retryTransient('discovery', attempt, { signal, backoff: fast() })).rejects.toThrow(
      '403 Forbidden',
    );
    expect(calls()).toBe(2);
  });

  it('gives up with the last error once its signal aborts', async () => {
    const stop = new AbortController();
    const attempt = async () => {
      throw unavailable();
    };
    const retrying = retryTransient('discovery', attempt, {
      signal: stop.signal,
      backoff: new Backoff({ initialMs: 60_000 }),
    });
    stop.abort();

    await expect(retrying).rejects.toThrow('503 ServiceUnavailable');
  });
});

describe('RetryLogGate', () => {
  it('admits the first retry of an operation and each change of reason, then one per interval', () => {
    const gate = new RetryLogGate(30_000);
    const admitted = [
      gate.admit('discovery', '503 ServiceUnavailable', 0),
      gate.admit('discovery', '503 ServiceUnavailable', 1_000),
      gate.admit('list and watch of ConfigMap', '503 ServiceUnavailable', 1_000),
      gate.admit('discovery', 'ECONNRESET', 2_000),
      gate.admit('discovery', 'ECONNRESET', 31_000),
      gate.admit('discovery', 'ECONNRESET', 32_001),
    ];

    expect(admitted).toEqual([true, false, true, true, false, true]);
  });

  it('keeps an hour-long outage to a line per interval', () => {
    const gate = new RetryLogGate(30_000);
    let lines = 0;
    for (let now = 0; now < 3_600_000; now += 800)
      if (gate.admit('discovery', '503 ServiceUnavailable', now)) lines++;

    // 4 500 attempts at 800 ms; at most one line per 30 s of them.
    expect(lines).toBeLessThanOrEqual(3_600_000 / 30_000);
    expect(lines).toBeGreaterThan(100);
  });
});
