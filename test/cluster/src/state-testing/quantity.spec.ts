import { describe, expect, it } from 'vitest';
import {
  quantitiesEqual,
  quantityCeilIn,
  quantityMillis,
  quantitySpellings,
  resourceListDifferences,
} from './quantity.js';

describe('quantities', () => {
  it('reads every spelling of a value as the same thousandths', () => {
    expect(quantityMillis('1Gi')).toBe(1073741824000n);
    expect(quantityMillis('1024Mi')).toBe(1073741824000n);
    expect(quantityMillis(1073741824)).toBe(1073741824000n);
    expect(quantityMillis('0.5')).toBe(500n);
    expect(quantityMillis('500m')).toBe(500n);
    expect(quantityMillis('1e3')).toBe(1000000n);
    expect(quantityMillis('1.5Ki')).toBe(1536000n);
    expect(quantityMillis('1 Gi')).toBeUndefined();
    expect(quantityMillis('1u')).toBeUndefined(); // finer than a thousandth
  });

  it('spells a value every way it knows, each meaning the same and no two alike', () => {
    for (const millis of [0n, 500n, 1000n, 1536000n, 64n * 1024n ** 2n * 1000n, 2n * 10n ** 9n * 1000n]) {
      const spellings = quantitySpellings(millis);
      expect(new Set(spellings.map((s) => JSON.stringify(s))).size).toBe(spellings.length);
      for (const s of spellings) expect(quantityMillis(s), `${s} for ${millis}`).toBe(millis);
    }
    expect(quantitySpellings(1073741824000n)).toEqual(
      expect.arrayContaining(['1Gi', '1024Mi', '1048576Ki', '1073741824', 1073741824]),
    );
  });

  it('compares by value and rounds up into a unit', () => {
    expect(quantitiesEqual('1Gi', '1024Mi')).toBe(true);
    expect(quantitiesEqual('1Gi', '1G')).toBe(false);
    expect(quantityCeilIn('1G', '1Mi')).toBe(954n);
    expect(quantityCeilIn('64Mi', '1Mi')).toBe(64n);
  });

  it('names every resource whose quantity differs, is missing or is extra', () => {
    expect(
      resourceListDifferences('limits', { cpu: '100m', memory: '1Gi' }, { cpu: 0.1, memory: '1024Mi' }),
    ).toEqual([]);
    expect(resourceListDifferences('limits', { cpu: '200m', memory: '1Gi' }, { cpu: '0.1' })).toEqual([
      'limits.cpu is 200m, the spec says 0.1',
      'limits.memory is 1Gi, the spec says undefined',
    ]);
    expect(resourceListDifferences('requests', undefined, { cpu: '1' })).toEqual([
      'requests.cpu is undefined, the spec says 1',
    ]);
  });
});
