import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeGo, type GoType } from '../../go-compat/go-json-decode.js';
import { GO_PROPERTY_VALUES } from './go-schemas.js';
import { decodePropertyValue } from './properties.js';

// A fixed seed keeps `npm test` reproducible; FUZZ_RUNS=100000 searches longer on demand.
const params = { seed: 20261127, numRuns: Number(process.env.FUZZ_RUNS ?? 1000) };

/** What parsing a property makes of a decoded value: every field of the type first, then the value's own keys. */
function filledIn(value: unknown, type: GoType): string {
  const fields = type.kind === 'struct' ? Object.keys(type.fields) : [];
  return JSON.stringify({ ...Object.fromEntries(fields.map((f) => [f, ''])), ...(value as object) });
}

describe('decodePropertyValue', () => {
  it('decodes every property value as decodeGo does, after filling in the fields', () => {
    const type = fc.constantFrom(...Object.keys(GO_PROPERTY_VALUES));
    // Exact field names of the string structs, ones that only fold onto them, and unknown ones.
    const key = fc.constantFrom(
      'packageName',
      'version',
      'release',
      'versionRange',
      'group',
      'kind',
      'Kind',
      'VERSION',
      'data',
      'x',
    );
    const scalar = fc.oneof(
      { weight: 4, arbitrary: fc.string({ maxLength: 3 }) },
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
    );
    const value = fc.oneof(
      { weight: 4, arbitrary: fc.dictionary(key, scalar, { maxKeys: 4 }) },
      scalar,
      fc.array(scalar, { maxLength: 2 }),
    );
    fc.assert(
      fc.property(type, value, (typeName, v) => {
        const goType = GO_PROPERTY_VALUES[typeName] as GoType;
        const fast = decodePropertyValue(v, goType);
        const slow = decodeGo(v, goType);
        expect(fast.error).toBe(slow.error);
        if (slow.error !== undefined) return;
        expect(fast.value).toEqual(slow.value);
        expect(filledIn(fast.value, goType)).toBe(filledIn(slow.value, goType));
      }),
      params,
    );
  });
});
