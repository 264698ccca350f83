import { describe, expect, it } from 'vitest';
import { FakeClock } from './clock.js';
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialRateLimiter,
  MaxOfRateLimiter,
} from './rate-limiter.js';

describe('ItemExponentialRateLimiter', () => {
  it('doubles from 5 ms per failure of the same key, and counts the failures', () => {
    const limiter = new ItemExponentialRateLimiter();
    expect([1, 2, 3, 4].map(() => limiter.when('a'))).toEqual([5, 10, 20, 40]);
    expect(limiter.numRequeues('a')).toBe(4);
  });

  it('caps the delay at 1000 s by default, even after enough failures to overflow', () => {
    const limiter = new ItemExponentialRateLimiter();
    let delay = 0;
    for (let i = 0; i < 2_000; i++) delay = limiter.when('a');
    expect(delay).toBe(1_000_000);
  });

  it('backs off each key independently', () => {
    const limiter = new ItemExponentialRateLimiter({ baseMs: 1, maxMs: 100 });
    limiter.when('a');
    limiter.when('a');
    expect(limiter.when('b')).toBe(1);
    expect(limiter.when('a')).toBe(4);
  });

  it('starts over after forget', () => {
    const limiter = new ItemExponentialRateLimiter();
    limiter.when('a');
    limiter.when('a');
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    expect(limiter.when('a')).toBe(5);
  });
});

describe('BucketRateLimiter', () => {
  it('lets a burst through, then spaces retries 1/qps apart, refilling over time', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter({ qps: 10, burst: 2, clock });
    expect([limiter.when(), limiter.when(), limiter.when(), limiter.when()]).toEqual([0, 0, 100, 200]);
    clock.advance(1_000);
    // The two reserved tokens were repaid; the bucket is full again (capped at the burst).
    expect([limiter.when(), limiter.when(), limiter.when()]).toEqual([0, 0, 100]);
    expect(limiter.numRequeues()).toBe(0);
  });

  it('defaults to 10 qps with a burst of 100', () => {
    const limiter = new BucketRateLimiter({ clock: new FakeClock() });
    for (let i = 0; i < 100; i++) expect(limiter.when()).toBe(0);
    expect(limiter.when()).toBeCloseTo(100);
  });
});

describe('MaxOfRateLimiter', () => {
  it('takes the longest delay, feeds every limiter, and forgets in all of them', () => {
    const slow = new ItemExponentialRateLimiter({ baseMs: 100, maxMs: 1_000 });
    const fast = new ItemExponentialRateLimiter({ baseMs: 1, maxMs: 1_000 });
    const limiter = new MaxOfRateLimiter(fast, slow);
    expect(limiter.when('a')).toBe(100);
    expect(limiter.when('a')).toBe(200);
    expect(fast.numRequeues('a')).toBe(2);
    expect(limiter.numRequeues('a')).toBe(2);
    limiter.forget('a');
    expect(slow.numRequeues('a') + fast.numRequeues('a')).toBe(0);
  });
});

describe('defaultControllerRateLimiter', () => {
  it('is per-item exponential from 5 ms to 1000 s, with no overall bucket', () => {
    const limiter = defaultControllerRateLimiter();
    expect(limiter).toBeInstanceOf(ItemExponentialRateLimiter);
    // 200 distinct keys failing at once: a 100-burst bucket would delay the later ones.
    for (let i = 0; i < 200; i++) expect(limiter.when(`key-${i}`)).toBe(5);
    let delay = 0;
    for (let i = 0; i < 40; i++) delay = limiter.when('hot');
    expect(delay).toBe(1_000_000);
  });
});
