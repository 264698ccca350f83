import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkBundleObjects, readBundleObjects } from './properties.js';
import type { BundleBlob, Property } from './types.js';

// A fixed seed keeps `npm test` reproducible; FUZZ_RUNS=100000 searches longer on demand.
const params = { seed: 20261206, numRuns: Number(process.env.FUZZ_RUNS ?? 300) };

const bundleWith = (values: readonly unknown[]): BundleBlob => ({
  schema: 'olm.bundle',
  name: 'b.v1',
  package: 'b',
  image: '',
  properties: values.map(
    (value): Property =>
      value === undefined ? { type: 'olm.bundle.object' } : { type: 'olm.bundle.object', value },
  ),
});

const outcome = (run: () => unknown): string => {
  try {
    run();
    return 'ok';
  } catch (err) {
    return (err as Error).message;
  }
};

describe('checkBundleObjects', () => {
  it('accepts and refuses what decoding every object does, with the same message', () => {
    // Objects as JSON (after whitespace of every kind, or long enough that only a prefix is decoded), as YAML,
    // broken YAML, and data that is not base64 or not a string.
    const text = fc.constantFrom(
      '{"kind":"ClusterServiceVersion"}',
      ' \n\t{"a":1}',
      '\u00a0{"a":1}',
      `${' '.repeat(3070)}{"a":1}`,
      `${' '.repeat(3068)}é{"a":1}`,
      `{"a":"${'é'.repeat(4000)}"}`,
      'kind: ConfigMap\n',
      'a: [1\n',
      '',
      '- 1\n',
      'é: 1\n',
    );
    const base64 = text.map((t) => Buffer.from(t).toString('base64'));
    const data = fc.oneof(
      base64.map((data) => ({ data })),
      base64.map((data) => ({ data: `${data.slice(0, 4)}\n${data.slice(4)}` })),
      fc.constantFrom({ data: 'QR==' }, { data: 'a*b=' }, { data: 5 }, {}, undefined, 'x'),
    );
    fc.assert(
      fc.property(fc.array(data, { minLength: 1, maxLength: 3 }), (values) => {
        expect(outcome(() => checkBundleObjects(bundleWith(values)))).toBe(
          outcome(() => readBundleObjects(bundleWith(values))),
        );
      }),
      params,
    );
  });
});
