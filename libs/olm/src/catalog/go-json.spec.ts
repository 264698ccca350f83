import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeGoBase64 } from './go-base64.js';
import { goBoolVerb, goValue } from './go-format.js';
import { decodeGo } from './go-json-decode.js';
import { encodeGoJson, encodeGoJsonByWalk } from './go-json-encode.js';
import { scanJsonValue } from './go-json-scan.js';
import { GO_CHANNEL } from './go-schemas.js';

const scan = (s: string) => scanJsonValue(new TextEncoder().encode(s), 0);

describe('Go encoding/json emulation', () => {
  it.each([
    ['{"a" 1}', "invalid character '1' after object key", 6],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string", 8],
    ['[1,]', "invalid character ']' looking for beginning of value", 4],
    ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')", 9],
    ['{"a":-x}', "invalid character 'x' in numeric literal", 7],
    ['{"a":"\\q"}', "invalid character 'q' in string escape code", 8],
  ])('reports %s like Go: %s at offset %d', (input, message, offset) => {
    expect(scan(input)).toEqual({ kind: 'syntax', message, offset });
  });

  it('decodes struct fields case-insensitively, the last of equal-folding keys winning in sorted order', () => {
    const { value } = decodeGo({ NAME: 'a', name: 'b', entries: [{ Name: 'x' }] }, GO_CHANNEL);
    expect(value).toEqual({ name: 'b', entries: [{ name: 'x' }] });
  });

  it('reports the first type error with the struct path and keeps decoding', () => {
    const { value, error } = decodeGo({ entries: [{ skips: 'a', name: 'n' }], name: 5 }, GO_CHANNEL);
    expect(error).toBe(
      'json: cannot unmarshal string into Go struct field ChannelEntry.entries.skips of type []string',
    );
    expect(value).toEqual({ entries: [{ name: 'n' }] });
  });

  it('decodes base64 like Go, skipping line breaks and requiring padding', () => {
    expect(Buffer.from(decodeGoBase64('aGVs\nbG8=')).toString()).toBe('hello');
    expect(() => decodeGoBase64('aGVsbG8')).toThrow('illegal base64 data at input byte 4');
  });

  it('encodes without HTML escaping but escapes U+2028', () => {
    expect(encodeGoJson({ b: '<&>', a: '\u2028' })).toBe('{"a":"\\u2028","b":"<&>"}');
  });

  it('formats values like fmt %v and %t', () => {
    expect(goValue({ b: [1, 'x', true, null], a: 1e6 })).toBe('map[a:1e+06 b:[1 x true <nil>]]');
    expect(goBoolVerb(5)).toBe('%!t(float64=5)');
  });
});

describe('encodeGoJson against the JSON of sorted keys', () => {
  /** What Go writes for a map: keys sorted by bytes at every level (ASCII keys here, so code units agree). */
  const sortedDeep = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortedDeep);
    if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      return Object.fromEntries(
        Object.keys(o)
          .sort()
          .map((k) => [k, sortedDeep(o[k])]),
      );
    }
    return v;
  };
  const ascii = fc.string({ unit: fc.constantFrom(...'abAB09_-."\\ <&>\n'.split('')), maxLength: 6 });
  // JavaScript objects put integer-like keys first whatever their order, so the oracle cannot hold those.
  const key = ascii.filter((k) => !/^(0|[1-9][0-9]*)$/.test(k));
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      ascii,
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('node'), { maxLength: 4 }),
      fc.dictionary(key, tie('node'), { maxKeys: 4 }),
    ),
  })).node;

  it('writes maps with sorted keys, compact and indented, as JSON.stringify does for them', () => {
    fc.assert(
      fc.property(value, fc.constantFrom('', '    ', '\t'), (v, indent) => {
        expect(encodeGoJson(v, indent)).toBe(JSON.stringify(sortedDeep(v), null, indent));
      }),
      { seed: 20261127, numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    );
  });

  it('writes structs in field order and leaves out undefined fields', () => {
    const struct = new Map<string, unknown>([
      ['z', 1],
      ['gone', undefined],
      ['a', { y: [new Map([['k', 'v']])], b: undefined, x: {} }],
    ]);
    expect(encodeGoJson(struct, '  ')).toBe(
      '{\n  "z": 1,\n  "a": {\n    "x": {},\n    "y": [\n      {\n        "k": "v"\n      }\n    ]\n  }\n}',
    );
  });
});

describe('encodeGoJson writes what the node-by-node encoder writes', () => {
  // Characters where JSON.stringify and Go part ways (U+2028, lone surrogates, escapes) or where UTF-16 and byte
  // order differ (U+FFFF against U+10000), and keys JavaScript objects reorder (integer-like, __proto__).
  const unit = fc.constantFrom(
    ...[
      'a',
      'b',
      'Z',
      '0',
      '9',
      '"',
      '\\',
      '\n',
      '\u0001',
      '<',
      '\u2028',
      '\u2029',
      '\uffff',
      '\u{10000}',
      '\ud800',
      'é',
    ],
  );
  const text = fc.string({ unit, maxLength: 5 });
  const key = fc.oneof(text, fc.constantFrom('__proto__', '10', '9', '01', 'schema', 'name'));
  const number = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(-0, 1e21, 1e-7, 0.1));
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      text,
      number,
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.array(tie('node'), { maxLength: 4 }),
      fc.dictionary(key, tie('node'), { maxKeys: 4 }),
      // A dictionary in the order JSON.parse gives it (sorted, as opm writes), the case the fast path is for.
      fc
        .dictionary(key, tie('node'), { maxKeys: 4 })
        .map((d) => Object.fromEntries(Object.entries(d).sort(([a], [b]) => (a < b ? -1 : 1)))),
      fc.array(fc.tuple(key, tie('node')), { maxLength: 4 }).map((entries) => new Map(entries)),
    ),
  })).node;
  const outcome = (encode: () => string): string => {
    try {
      return encode();
    } catch (err) {
      return `threw ${(err as Error).message}`;
    }
  };

  it('for any value, compact and indented', () => {
    fc.assert(
      fc.property(value, fc.constantFrom('', '    ', '\t'), (v, indent) => {
        expect(outcome(() => encodeGoJson(v, indent))).toBe(outcome(() => encodeGoJsonByWalk(v, indent)));
      }),
      { seed: 20261127, numRuns: Number(process.env.FUZZ_RUNS ?? 2000) },
    );
  });

  it('for the documents of a rendered catalog', () => {
    const bundle = new Map<string, unknown>([
      ['schema', 'olm.bundle'],
      ['name', 'a.v1.0.0'],
      ['image', 'quay.io/a@sha256:00'],
      ['package', undefined],
      [
        'properties',
        [
          new Map<string, unknown>([
            ['type', 'olm.package'],
            ['value', { packageName: 'a', version: '1.0.0' }],
          ]),
          new Map<string, unknown>([
            ['type', 'olm.csv.metadata'],
            [
              'value',
              { annotations: { '2nd': 'x', alm: '\u2028' }, description: 'd', minKubeVersion: '1.2' },
            ],
          ]),
        ],
      ],
    ]);
    expect(encodeGoJson(bundle, '    ')).toBe(encodeGoJsonByWalk(bundle, '    '));
  });
});
