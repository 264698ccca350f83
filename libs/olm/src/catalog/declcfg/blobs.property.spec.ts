import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeGo, type GoType } from '../../go-compat/go-json-decode.js';
import { copiedProperties, properties } from './blobs.js';
import { GO_BUNDLE } from './go-schemas.js';

// A fixed seed keeps `npm test` reproducible; FUZZ_RUNS=100000 searches longer on demand.
const params = { seed: 20261127, numRuns: Number(process.env.FUZZ_RUNS ?? 1000) };

const PROPERTY_SLICE = (GO_BUNDLE as Extract<GoType, { kind: 'struct' }>).fields.properties as GoType;

describe('properties', () => {
  it('gives what copying every decoded property gives, key order included', () => {
    // Keys that fold onto the two fields of property.Property, and one that does not; values of every JSON kind.
    const key = fc.constantFrom('type', 'Type', 'TYPE', 'value', 'Value', 'x');
    const value = fc.oneof(
      fc.constantFrom('olm.package', 'olm.gvk', ''),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant({ group: 'g' }),
    );
    const property = fc.oneof(fc.dictionary(key, value, { maxKeys: 4 }), fc.constant(null));
    fc.assert(
      fc.property(fc.array(property, { maxLength: 4 }), (input) => {
        const expected = copiedProperties(decodeGo(input, PROPERTY_SLICE).value);
        const actual = properties(decodeGo(input, PROPERTY_SLICE).value);
        expect(actual).toEqual(expected);
        expect(actual?.map((p) => Object.keys(p))).toEqual(expected?.map((p) => Object.keys(p)));
      }),
      params,
    );
  });
});
