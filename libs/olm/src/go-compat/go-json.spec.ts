import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  GO_STRUCT,
  goCompactJson,
  goIndentJson,
  goJsonMarshal,
  goJsonMarshalByWalk,
  goJsonString,
  RawJson,
  rawArrayMembers,
} from './go-json.js';

describe('goJsonMarshal', () => {
  it('encodes without HTML escaping but escapes U+2028', () => {
    expect(goJsonMarshal({ b: '<&>', a: '\u2028' }, { escapeHtml: false })).toBe('{"a":"\\u2028","b":"<&>"}');
  });

  it("sorts keys and escapes like Go's json.Marshal", () => {
    expect(goJsonMarshal({ b: '<a & b>', a: [1, 2.5, true, null], c: 'line\u2028sep\ttab\u0001' })).toBe(
      '{"a":[1,2.5,true,null],"b":"\\u003ca \\u0026 b\\u003e","c":"line\\u2028sep\\ttab\\u0001"}',
    );
  });

  it('keeps struct order and HTML when asked, and indents like MarshalIndent', () => {
    expect(
      goJsonMarshal({ z: '<', a: {}, b: [] }, { sortKeys: false, escapeHtml: false, indent: '  ' }),
    ).toBe('{\n  "z": "<",\n  "a": {},\n  "b": []\n}');
  });

  it('writes raw JSON as is', () => {
    expect(goJsonMarshal({ v: new RawJson('{"x":"\\u003c"}') })).toBe('{"v":{"x":"\\u003c"}}');
  });

  it('writes a lone surrogate as U+FFFD, which Go decodes its escape to, on the fast path and the walk', () => {
    // encoding/json's decoder turns "\ud800" into U+FFFD, which its encoder writes as it is.
    const doc = { a: 'x\ud800y', '\udfff': ['\\ud800'] };
    const expected = '{"a":"x\ufffdy","\ufffd":["\\\\ud800"]}';
    expect(goJsonMarshal(doc)).toBe(expected);
    expect(goJsonMarshalByWalk(doc)).toBe(expected);
  });
});

/**
 * Go's `appendString` from encoding/json, character by character: `"` and `\` escaped, `\b \f \n \r \t` by
 * name, other control characters and (with HTML escaping) `<`, `>`, `&` as `\u00XX`, U+2028 and U+2029 always
 * escaped, everything else as it is. A lone surrogate stands for the U+FFFD Go's decoder made of it.
 */
function goAppendString(s: string, escapeHtml: boolean): string {
  const named: Record<string, string> = {
    '"': '\\"',
    '\\': '\\\\',
    '\b': '\\b',
    '\f': '\\f',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
  };
  let out = '"';
  for (const char of s) {
    const code = char.codePointAt(0) ?? 0;
    if (named[char] !== undefined) out += named[char];
    else if (code < 0x20 || (escapeHtml && '<>&'.includes(char)))
      out += `\\u00${code.toString(16).padStart(2, '0')}`;
    else if (code === 0x2028 || code === 0x2029) out += `\\u${code.toString(16)}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += '\ufffd';
    else out += char;
  }
  return `${out}"`;
}

describe('goJsonString', () => {
  it("quotes every string as Go's encoder does, with and without HTML escaping", () => {
    const unit = fc.constantFrom(
      ...['a', '"', '\\', '\b', '\f', '\n', '\u0000', '\u001f', '\u007f', '<', '>', '&', '\u2028', '\u2029'],
      ...['é', '\uffff', '\ud83d\ude00', '\ud800', '\udfff', 'u', 'd', '8'],
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 8 }), fc.boolean(), (s, escapeHtml) => {
        expect(goJsonString(s, escapeHtml)).toBe(goAppendString(s, escapeHtml));
      }),
      { seed: 20261127, numRuns: Number(process.env.FUZZ_RUNS ?? 2000) },
    );
  });
});

describe('JSON text helpers', () => {
  it('indents and compacts without touching strings', () => {
    const text = '{"a": ["x: y", {}], "b" :{"c":[ ]}}';
    expect(goCompactJson(text)).toBe('{"a":["x: y",{}],"b":{"c":[]}}');
    expect(goIndentJson(goCompactJson(text), '  ')).toBe(
      '{\n  "a": [\n    "x: y",\n    {}\n  ],\n  "b": {\n    "c": []\n  }\n}',
    );
  });

  it('extracts raw member values of array elements', () => {
    expect(
      rawArrayMembers('[{"type": "a", "value": {"z": 1, "a": "x<y"}}, {"Value": [1, 2]}, 3]', 'value'),
    ).toStrictEqual(['{"z":1,"a":"x<y"}', '[1,2]', undefined]);
  });
});

describe('goJsonMarshal against the JSON of sorted keys', () => {
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
        expect(goJsonMarshal(v, { escapeHtml: false, indent })).toBe(
          JSON.stringify(sortedDeep(v), null, indent),
        );
      }),
      { seed: 20261127, numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    );
  });

  it('writes marked plain objects as structs, in field order, on the fast path and the walk', () => {
    const struct = { z: 1, gone: undefined, a: { y: 2, b: undefined, x: {} }, [GO_STRUCT]: true } as const;
    const expected = '{\n  "z": 1,\n  "a": {\n    "x": {},\n    "y": 2\n  }\n}';
    expect(goJsonMarshal(struct, { escapeHtml: false, indent: '  ' })).toBe(expected);
    expect(goJsonMarshalByWalk(struct, { escapeHtml: false, indent: '  ' })).toBe(expected);
  });

  it('writes structs in field order and leaves out undefined fields', () => {
    const struct = new Map<string, unknown>([
      ['z', 1],
      ['gone', undefined],
      ['a', { y: [new Map([['k', 'v']])], b: undefined, x: {} }],
    ]);
    expect(goJsonMarshal(struct, { escapeHtml: false, indent: '  ' })).toBe(
      '{\n  "z": 1,\n  "a": {\n    "x": {},\n    "y": [\n      {\n        "k": "v"\n      }\n    ]\n  }\n}',
    );
  });
});

describe('goJsonMarshal writes what the node-by-node encoder writes', () => {
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
      // A struct as a marked plain object, in the order its fields were added.
      fc
        .array(fc.tuple(key, tie('node')), { maxLength: 4 })
        .map((entries) => ({ ...Object.fromEntries(entries), [GO_STRUCT]: true })),
    ),
  })).node;
  const options = fc.record({
    indent: fc.constantFrom('', '    ', '\t'),
    escapeHtml: fc.boolean(),
    sortKeys: fc.boolean(),
  });
  const outcome = (encode: () => string): string => {
    try {
      return encode();
    } catch (err) {
      return `threw ${(err as Error).message}`;
    }
  };

  it('for any value, compact and indented, with and without HTML escaping and sorted keys', () => {
    fc.assert(
      fc.property(value, options, (v, opts) => {
        expect(outcome(() => goJsonMarshal(v, opts))).toBe(outcome(() => goJsonMarshalByWalk(v, opts)));
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
    expect(goJsonMarshal(bundle, { escapeHtml: false, indent: '    ' })).toBe(
      goJsonMarshalByWalk(bundle, { escapeHtml: false, indent: '    ' }),
    );
  });
});
