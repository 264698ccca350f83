import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Meta, MetaError, metaByFolding, toMeta } from './meta.js';

// A fixed seed keeps `npm test` reproducible; FUZZ_RUNS=100000 searches longer on demand.
const params = { seed: 20261127, numRuns: Number(process.env.FUZZ_RUNS ?? 1000) };

/** What reading a blob gives: its Meta, or the message of the error opm would print. */
function outcome(read: () => Meta): Meta | { error: string } {
  try {
    return read();
  } catch (err) {
    if (err instanceof MetaError) return { error: err.message };
    throw err;
  }
}

describe('toMeta', () => {
  it('reads every object as grouping its keys by folded form does', () => {
    // Keys that fold alike, keys of the three Meta fields (one through the Kelvin sign, which folds to `k`),
    // and others; values of every JSON kind. Dictionaries whose keys fold apart take the short path.
    const key = fc.constantFrom(
      'schema',
      'Schema',
      'SCHEMA',
      'package',
      'Package',
      'pac\u212Aage',
      'name',
      'NAME',
      'nAme',
      'image',
      'Image',
      'relatedImages',
      'relatedimages',
      'RelatedImages',
      'x',
    );
    const value = fc.oneof(
      fc.string({ maxLength: 4 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant({ a: 1 }),
    );
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 6 }), (blob) => {
        const text = JSON.stringify(blob);
        expect(outcome(() => toMeta(blob, text))).toEqual(outcome(() => metaByFolding(blob)));
      }),
      params,
    );
  });

  it('reports keys that fold alike, and a Meta field that is not a string', () => {
    expect(() => toMeta({ name: 'a', Name: 'b' }, '')).toThrow('duplicate keys for key "name": [Name name]');
    expect(() => toMeta({ Schema: 1 }, '')).toThrow('expected value for key "Schema" to be a string');
    expect(toMeta({ SCHEMA: 'olm.bundle', Name: 'a', image: 'x' }, '')).toEqual({
      schema: 'olm.bundle',
      package: '',
      name: 'a',
      blob: { SCHEMA: 'olm.bundle', Name: 'a', image: 'x' },
    });
  });
});
