import { afterEach, describe, expect, it, vi } from 'vitest';
import { Backoff, sleep } from './backoff.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Backoff', () => {
  it('GIVEN repeated failures THEN the delay doubles from the initial value up to the maximum', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const backoff = new Backoff({ initialMs: 100, maxMs: 1_000, resetAfterMs: 10_000 });

    const delays = [0, 1, 2, 3, 4, 5].map((i) => backoff.next(1_000 + i));

    expect(delays).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it('GIVEN full jitter THEN each delay lies between the base delay and twice it', () => {
    vi.spyOn(Math, 'random').mockReturnValueOnce(0.5).mockReturnValueOnce(0.999);
    const backoff = new Backoff({ initialMs: 100 });

    expect(backoff.next(1_000)).toBe(150);
    expect(backoff.next(1_001)).toBeCloseTo(399.8);
  });

  it('GIVEN a jitter of 0.2 THEN each delay lies between the base delay and 1.2 times it', () => {
    vi.spyOn(Math, 'random').mockReturnValueOnce(0).mockReturnValueOnce(0.5).mockReturnValueOnce(0.999);
    const backoff = new Backoff({ initialMs: 1_000, maxMs: 2_000, jitter: 0.2 });

    expect(backoff.next(1_000)).toBe(1_000);
    expect(backoff.next(1_001)).toBe(2_200);
    expect(backoff.next(1_002)).toBeCloseTo(2_399.6);
  });

  it('GIVEN no failure for longer than resetAfterMs THEN the next delay starts over from the initial value', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const backoff = new Backoff({ initialMs: 100, maxMs: 1_000, resetAfterMs: 5_000 });
    backoff.next(1_000);
    backoff.next(2_000);

    expect(backoff.next(7_000)).toBe(400);
    expect(backoff.next(12_001)).toBe(100);
  });

  it('GIVEN no options THEN the defaults are client-go reflector ones: 800 ms doubling to 30 s', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const backoff = new Backoff();

    const delays = Array.from({ length: 8 }, (_, i) => backoff.next(1_000 + i));

    expect(delays).toEqual([800, 1_600, 3_200, 6_400, 12_800, 25_600, 30_000, 30_000]);
  });
});

describe('sleep', () => {
  it('GIVEN a delay THEN it resolves after it', async () => {
    const started = performance.now();
    await sleep(30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('GIVEN a signal that aborts THEN it resolves at once', async () => {
    const controller = new AbortController();
    const started = performance.now();
    const sleeping = sleep(60_000, controller.signal);

    controller.abort();
    await sleeping;

    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('GIVEN an already aborted signal THEN it resolves at once', async () => {
    const started = performance.now();
    await sleep(60_000, AbortSignal.abort());
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
