import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeGo } from '../../go-compat/go-json-decode.js';
import { exactBundleFields } from './bundle-fields.js';
import { GO_BUNDLE } from './go-schemas.js';
import { bundleBlob } from './spec-fixtures.js';

// A fixed seed keeps `npm test` reproducible; FUZZ_RUNS=100000 searches longer on demand.
const params = { seed: 20261127, numRuns: Number(process.env.FUZZ_RUNS ?? 1000) };

const propertyKeys = (fields: Record<string, unknown>): string[][] | undefined =>
  Array.isArray(fields.properties) ? fields.properties.map((p) => Object.keys(p as object)) : undefined;

describe('exactBundleFields', () => {
  it('gives what decoding into declcfg.Bundle gives, whenever it gives anything', () => {
    // Exact field names, ones that only fold onto a field, and an unknown one; values of every kind, and
    // property and related image lists that are exact, almost exact, or not lists at all.
    const scalar = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.boolean(), fc.constant(null));
    const property = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({
          type: fc.constantFrom('olm.package', 'olm.gvk'),
          value: fc.oneof(scalar, fc.constant({ a: 1 })),
        }),
      },
      fc.record({ type: fc.constantFrom('olm.gvk') }),
      fc.dictionary(fc.constantFrom('type', 'Type', 'value', 'Value', 'x'), scalar, { maxKeys: 3 }),
      scalar,
    );
    const relatedImage = fc.oneof(
      fc.record(
        { name: fc.string({ maxLength: 2 }), image: fc.string({ maxLength: 2 }) },
        { requiredKeys: [] },
      ),
      fc.dictionary(fc.constantFrom('name', 'Image', 'x'), scalar, { maxKeys: 2 }),
      scalar,
    );
    const anyValue = fc.oneof(
      scalar,
      fc.array(property, { maxLength: 3 }),
      fc.array(relatedImage, { maxLength: 2 }),
    );
    // The field's own type most of the time, so that whole blobs often have them all.
    const mostly = (own: fc.Arbitrary<unknown>) =>
      fc.oneof({ weight: 6, arbitrary: own }, { weight: 1, arbitrary: anyValue });
    const fields = fc.record(
      {
        schema: mostly(fc.constant('olm.bundle')),
        name: mostly(fc.string({ maxLength: 3 })),
        package: mostly(fc.string({ maxLength: 3 })),
        image: mostly(fc.string({ maxLength: 3 })),
        properties: mostly(fc.array(property, { maxLength: 4 })),
        relatedImages: mostly(fc.array(relatedImage, { maxLength: 2 })),
      },
      { requiredKeys: [] },
    );
    // Mostly none, else one key that only folds onto a field or matches none.
    const odd = fc.dictionary(fc.constantFrom('Name', 'IMAGE', 'Properties', 'x'), anyValue, { maxKeys: 1 });
    const bundle = fc.tuple(
      fields,
      fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: odd }),
    );
    let recognised = 0;
    fc.assert(
      fc.property(bundle, ([exact, extra]) => {
        const blob: Record<string, unknown> = { ...exact, ...extra };
        const before = JSON.stringify(blob);
        const fields = exactBundleFields(blob);
        expect(JSON.stringify(blob)).toBe(before);
        if (fields === undefined) return;
        recognised++;
        const decoded = decodeGo(blob, GO_BUNDLE);
        expect(decoded.error).toBeUndefined();
        expect(fields).toEqual(decoded.value);
        expect(propertyKeys(fields)).toEqual(propertyKeys(decoded.value as Record<string, unknown>));
      }),
      params,
    );
    expect(recognised).toBeGreaterThan(params.numRuns / 10);
  });

  it('recognises a bundle as catalogs spell it, and leaves misspelt fields to the decoder', () => {
    const blob = {
      ...bundleBlob('foo', '1.0.0'),
      relatedImages: [{ name: 'operator', image: 'quay.io/example/foo:v1.0.0' }],
    };
    expect(exactBundleFields(blob)).toEqual(blob);
    expect(exactBundleFields({ ...blob, Image: 'quay.io/example/other' })).toBeUndefined();
    expect(exactBundleFields({ ...blob, image: null })).toBeUndefined();
  });
});
