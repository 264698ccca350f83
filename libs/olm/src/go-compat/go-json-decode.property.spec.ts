import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  GO_BUNDLE,
  GO_CHANNEL,
  GO_DEPRECATION,
  GO_PACKAGE,
  GO_PROPERTY_VALUES,
} from '../catalog/declcfg/go-schemas.js';
import { decodeGo, decodesToItself, type GoType } from './go-json-decode.js';

// A fixed seed keeps `npm test` reproducible; FUZZ_RUNS=100000 searches longer on demand.
const params = { seed: 20261127, numRuns: Number(process.env.FUZZ_RUNS ?? 1000) };

/** Equal values with their object keys in the same order; `-0` and `0` differ. */
function sameWithKeyOrder(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.join('\u0000') !== bKeys.join('\u0000')) return false;
  return aKeys.every((k) =>
    sameWithKeyOrder((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}

const noise: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.string({ maxLength: 2 }),
  fc.constant([]),
  fc.constant({}),
);

/** An object from entries, in their order or in Go's (most of the time, as opm writes documents). */
function objectOf(entries: fc.Arbitrary<[string, unknown][]>): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(entries, fc.nat(3))
    .map(([list, order]) =>
      Object.fromEntries(order > 0 ? [...list].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : list),
    );
}

/** Values of a Go type's shape most of the time, with wrong types, `null`s, folded and unknown keys between. */
function shaped(t: GoType, depth: number): fc.Arbitrary<unknown> {
  const mostly = (own: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
    fc.oneof({ weight: 12, arbitrary: own }, { weight: 1, arbitrary: noise });
  switch (t.kind) {
    case 'string':
      return mostly(fc.string({ maxLength: 3 }));
    case 'int':
      return mostly(fc.oneof(fc.integer(), fc.constant(2 ** 60), fc.constant(-0), fc.constant(1.5)));
    case 'bool':
      return mostly(fc.boolean());
    case 'bytes':
      return mostly(fc.constantFrom('aGk=', 'aGk', '', 'a b'));
    case 'raw':
    case 'any':
      return fc.jsonValue({ maxDepth: 2 });
    case 'ptr':
      return shaped(t.elem, depth);
    case 'slice':
      return depth > 3
        ? mostly(fc.constant([]))
        : mostly(fc.array(shaped(t.elem, depth + 1), { maxLength: 3 }));
    case 'map': {
      const key = fc.oneof(
        fc.string({ maxLength: 2 }),
        fc.constantFrom('__proto__', '1', '10', '\u{1F600}', '\uE000'),
      );
      const entry = fc.tuple(key, shaped(t.elem, depth + 1));
      return depth > 3 ? mostly(fc.constant({})) : mostly(objectOf(fc.array(entry, { maxLength: 3 })));
    }
    case 'struct': {
      if (depth > 3) return mostly(fc.constant({}));
      const names = Object.keys(t.fields);
      // A field's exact name most of the time, else one that only folds onto it, or no field at all.
      const key = (name: string): fc.Arbitrary<string> =>
        fc.oneof(
          { weight: 8, arbitrary: fc.constant(name) },
          fc.constant(name.toUpperCase()),
          fc.constant('x'),
        );
      const entries = fc
        .subarray(names)
        .chain((chosen) =>
          fc.tuple(...chosen.map((name) => fc.tuple(key(name), shaped(t.fields[name] as GoType, depth + 1)))),
        )
        .map((list) => list as [string, unknown][]);
      return mostly(objectOf(entries));
    }
  }
}

const TYPES: Readonly<Record<string, GoType>> = {
  ...GO_PROPERTY_VALUES,
  'declcfg.Package': GO_PACKAGE,
  'declcfg.Channel': GO_CHANNEL,
  'declcfg.Bundle': GO_BUNDLE,
  'declcfg.Deprecation': GO_DEPRECATION,
};

describe('decodesToItself', () => {
  it('holds only for values that decodeGo gives back unchanged (key order included, unless told otherwise) without an error', () => {
    const typed = fc
      .constantFrom(...Object.keys(TYPES))
      .chain((name) => fc.tuple(fc.constant(TYPES[name] as GoType), shaped(TYPES[name] as GoType, 0)));
    let recognised = 0;
    fc.assert(
      fc.property(typed, ([type, value]) => {
        const before = JSON.stringify(value);
        const itself = decodesToItself(value, type);
        const inAnyOrder = decodesToItself(value, type, false);
        expect(JSON.stringify(value)).toBe(before);
        if (itself) expect(inAnyOrder).toBe(true);
        if (!inAnyOrder) return;
        const decoded = decodeGo(value, type);
        expect(decoded.error).toBeUndefined();
        expect(decoded.value).toEqual(value);
        if (!itself) return;
        recognised++;
        expect(sameWithKeyOrder(decoded.value, value)).toBe(true);
      }),
      params,
    );
    // Not a vacuous pass: a good share of the values are recognised.
    expect(recognised).toBeGreaterThan(params.numRuns / 10);
  });

  it('recognises a bundle property value written as opm writes it', () => {
    const metadata = {
      annotations: { capabilities: 'Basic Install', createdAt: '2026-01-01T00:00:00Z' },
      description: 'd',
      displayName: 'n',
      installModes: [
        { supported: true, type: 'OwnNamespace' },
        { supported: false, type: 'AllNamespaces' },
      ],
      keywords: ['a', 'b'],
      provider: { name: 'p' },
    };
    expect(decodesToItself(metadata, GO_PROPERTY_VALUES['olm.csv.metadata'] as GoType)).toBe(true);
    // Decoding sorts the keys of each install mode: this one comes back in another order.
    const unsorted = { ...metadata, installModes: [{ type: 'OwnNamespace', supported: true }] };
    expect(decodesToItself(unsorted, GO_PROPERTY_VALUES['olm.csv.metadata'] as GoType)).toBe(false);
  });
});
