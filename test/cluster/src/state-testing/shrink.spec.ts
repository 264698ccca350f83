import { describe, expect, it } from 'vitest';
import { shrinkSequence } from './shrink.js';

describe('shrinkSequence', () => {
  it('keeps only the steps the failure needs, in their order', async () => {
    const items = Array.from({ length: 40 }, (_, i) => i);
    // Fails when 7 comes before 31 (say, a field set then another that conflicts with it).
    const fails = async (xs: readonly number[]) => xs.includes(7) && xs.indexOf(31) > xs.indexOf(7);
    expect(await shrinkSequence(items, fails)).toEqual([7, 31]);
  });

  it('stops when the budget is spent, with the smallest failing sequence so far', async () => {
    let runs = 0;
    const shrunk = await shrinkSequence(
      [1, 2, 3, 4, 5, 6, 7, 8],
      async (xs) => xs.includes(8),
      () => ++runs <= 2,
    );
    expect(shrunk).toContain(8);
    expect(shrunk.length).toBeLessThan(8);
    expect(shrunk.length).toBeGreaterThan(1);
  });
});
