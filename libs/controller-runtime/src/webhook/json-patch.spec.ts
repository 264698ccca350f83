import { describe, expect, it } from 'vitest';
import { prng } from '../testing/prng.js';
import { applyJsonPatch, jsonPatch } from './json-patch.js';

/** A random JSON value with keys that need escaping, nested a few levels. */
function randomJson(random: () => number, depth = 0): unknown {
  const r = random();
  if (depth > 3 || r < 0.3) return [0, 'a', true, null, 1.5, '', 'x/y', 'a~b'][Math.floor(random() * 8)];
  if (r < 0.45) return Array.from({ length: Math.floor(random() * 3) }, () => randomJson(random, depth + 1));
  const keys = ['a', 'b', 'c/d', 'e~f', '', 'spec', 'metadata'];
  return Object.fromEntries(keys.filter(() => random() < 0.4).map((k) => [k, randomJson(random, depth + 1)]));
}

describe('jsonPatch', () => {
  it('sets one defaulted field with one add, escaping the pointer', () => {
    expect(jsonPatch({ spec: { size: 1 } }, { spec: { size: 1, 'a/b~c': 2 } })).toEqual([
      { op: 'add', path: '/spec/a~1b~0c', value: 2 },
    ]);
    expect(jsonPatch({ spec: { l: [1, 2] } }, { spec: { l: [1] } })).toEqual([
      { op: 'replace', path: '/spec/l', value: [1] },
    ]);
    expect(jsonPatch({ a: 1 }, { a: 1 })).toEqual([]);
  });

  it('turns any JSON value into any other (seeded, 2,000 pairs)', () => {
    const seed = Number(process.env.OPKIT_PROPERTY_SEED ?? 20261123);
    const random = prng(seed);
    for (let i = 0; i < Number(process.env.OPKIT_PROPERTY_CASES ?? 2_000); i++) {
      const before = { root: randomJson(random) };
      const after = random() < 0.2 ? structuredClone(before) : { root: randomJson(random) };
      const ops = jsonPatch(before, after);
      expect(applyJsonPatch(before, ops), `seed ${seed}, case ${i}`).toEqual(after);
      if (JSON.stringify(before) === JSON.stringify(after)) expect(ops).toEqual([]);
    }
  });
});
