import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  byteOrder,
  goBoolVerbOfJsonInterface,
  goFloat,
  goFormatJsonInterface,
  goFormatUnstructured,
  goQuote,
  sortInByteOrder,
} from './go-format.js';

// A fixed seed keeps `npm test` reproducible; FUZZ_RUNS=100000 searches longer on demand.
const params = { seed: 20261127, numRuns: Number(process.env.FUZZ_RUNS ?? 1000) };

describe("Go's formatting", () => {
  it('orders strings as Go does, by their UTF-8 bytes, also above U+FFFF', () => {
    // Characters from every range whose UTF-16 and UTF-8 orders differ: ASCII, U+E000–U+FFFF, astral.
    const char = fc.constantFrom('a', 'b', 'é', '\ue000', '\uffff', '𝄞', '😀', '\u{10ffff}');
    fc.assert(
      fc.property(fc.array(char, { maxLength: 6 }), fc.array(char, { maxLength: 6 }), (x, y) => {
        const [a, b] = [x.join(''), y.join('')];
        expect(Math.sign(byteOrder(a, b))).toBe(Buffer.compare(Buffer.from(a), Buffer.from(b)));
      }),
      params,
    );
    expect(byteOrder('\uffff', '😀')).toBe(-1);
  });

  it('sorts as the byteOrder comparator does, with and without characters from U+D800 up', () => {
    const char = fc.constantFrom('a', 'B', '-', '.', '0', 'é', '\ud7ff', '\ue000', '\uffff', '😀');
    const word = fc.array(char, { maxLength: 5 }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(fc.array(word, { maxLength: 12 }), (words) => {
        expect(sortInByteOrder([...words])).toEqual([...words].sort(byteOrder));
      }),
      params,
    );
    expect(sortInByteOrder(['\uffff', '😀', 'b', 'a'])).toEqual(['a', 'b', '\uffff', '😀']);
  });

  it('sorts words that are in Go order but one pair as the byteOrder comparator does', () => {
    const char = fc.constantFrom('a', 'B', '0', 'é', '\ue000', '\uffff', '😀');
    const word = fc.array(char, { maxLength: 4 }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(fc.uniqueArray(word, { maxLength: 8 }), fc.nat(), fc.boolean(), (unique, at, swap) => {
        const words = unique.sort(byteOrder);
        const i = words.length > 1 ? at % (words.length - 1) : 0;
        if (swap && words.length > 1) [words[i], words[i + 1]] = [words[i + 1] as string, words[i] as string];
        expect(sortInByteOrder([...words])).toEqual([...words].sort(byteOrder));
      }),
      params,
    );
  });

  it("writes a float64 as Go's %v: shortest digits, exponent form below 1e-4 and from 1e+06 on", () => {
    const cases: [number, string][] = [
      [0.0001, '0.0001'],
      [0.00001, '1e-05'],
      [123456.7, '123456.7'],
      [1e6, '1e+06'],
      [1234567.5, '1.2345675e+06'],
      [-2.5e-7, '-2.5e-07'],
      [1e21, '1e+21'],
      [Number.POSITIVE_INFINITY, '+Inf'],
    ];
    for (const [value, go] of cases) expect(goFloat(value), String(value)).toBe(go);
  });

  it("quotes as Go's %q and %+q", () => {
    expect(goQuote('a"b\\c\n\x01\x7f')).toBe('"a\\"b\\\\c\\n\\x01\\x7f"');
    expect(goQuote('héllo 😀 \u00a0')).toBe('"héllo 😀 \\u00a0"');
    expect(goQuote('héllo 😀', true)).toBe('"h\\u00e9llo \\U0001f600"');
    // A lone surrogate is what Go's decoders make U+FFFD.
    expect(goQuote('x\ud800')).toBe('"x\ufffd"');
  });

  it('formats values like fmt %v and %t', () => {
    expect(goFormatJsonInterface({ b: [1, 'x', true, null], a: 1e6 })).toBe(
      'map[a:1e+06 b:[1 x true <nil>]]',
    );
    expect(goBoolVerbOfJsonInterface(5)).toBe('%!t(float64=5)');
  });

  it('writes a number by the Go type its decoder gives it: float64 from encoding/json, int64 from apimachinery', () => {
    // fmt prints a float64 with %g's shortest form, exponent from 1e+06 on, and an int64 with every digit.
    // encoding/json decodes every number into interface{} as a float64 (opm's catalog blobs); apimachinery's
    // JSON decoding of unstructured objects keeps a number that parses as an integer as an int64.
    const content = { spec: { replicas: 1000000, ratio: 0.5, big: 2 ** 64 } };
    expect(goFormatJsonInterface(content)).toBe(
      'map[spec:map[big:1.8446744073709552e+19 ratio:0.5 replicas:1e+06]]',
    );
    expect(goFormatUnstructured(content)).toBe(
      '&{map[spec:map[big:1.8446744073709552e+19 ratio:0.5 replicas:1000000]]}',
    );
  });
});
