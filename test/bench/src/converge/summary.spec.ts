import { describe, expect, it } from 'vitest';
import { metric } from '../report.js';
import { convergeRatios } from './summary.js';

const seconds = (id: string, ...runs: number[]) => metric('operators', id, id, 's', 'lower', runs);

describe('convergeRatios', () => {
  it('divides our medians by the baseline’s, and by the same-objects baseline’s when it ran', () => {
    const metrics = [
      seconds('10.opkit.update.seconds', 30, 40, 50),
      seconds('10.baseline.update.seconds', 20),
      seconds('10.baseline-same-objects.update.seconds', 50),
    ];
    const ratios = Object.fromEntries(convergeRatios([10], metrics).map((r) => [r.id, r.value]));
    expect(ratios).toEqual({ '10.update.oursOverBaseline': 2, '10.update.oursOverSameObjects': 0.8 });
  });

  it('leaves out a ratio whose figures were not measured', () => {
    const metrics = [seconds('10.opkit.update.seconds', 30), seconds('10.baseline.update.seconds', 20)];
    expect(convergeRatios([10], metrics).map((r) => r.id)).toEqual(['10.update.oursOverBaseline']);
  });
});
