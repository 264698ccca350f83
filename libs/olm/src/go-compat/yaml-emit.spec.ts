import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeGoYaml, encodeGoYamlWithoutShortcuts, yamlKeyLess } from './yaml-emit.js';

describe('encodeGoYaml (sigs.k8s.io/yaml JSONToYAML over go-yaml v2)', () => {
  it('quotes strings that would read back as another type', () => {
    expect(encodeGoYaml({ a: ['yes', '1.0', '10', '~', '2021-01-01', 'null', '', '1:20', 'plain'] })).toBe(
      'a:\n- "yes"\n- "1.0"\n- "10"\n- "~"\n- "2021-01-01"\n- "null"\n- ""\n- "1:20"\n- plain\n',
    );
  });

  it('single-quotes strings with indicators or edge spaces, double-quotes non-printable ones', () => {
    expect(encodeGoYaml({ a: [' x', 'a: b', '#c', 'tab\tx', '>=1.0.0 <2.0.0'] })).toBe(
      "a:\n- ' x'\n- 'a: b'\n- '#c'\n- \"tab\\tx\"\n- '>=1.0.0 <2.0.0'\n",
    );
  });

  it('writes multi-line strings as literal blocks with the right chomping', () => {
    expect(encodeGoYaml({ d: 'one\ntwo', e: 'x\n', f: 'y\n\n' })).toBe(
      'd: |-\n  one\n  two\ne: |\n  x\nf: |+\n  y\n\n',
    );
  });

  it('folds long plain strings after column 80', () => {
    const out = encodeGoYaml({ description: 'word '.repeat(30).trim() });
    expect(out.split('\n')[0]!.length).toBeGreaterThan(80);
    expect(out.split('\n')[1]).toMatch(/^ {2}word/);
  });

  it('writes empty collections in flow style and numbers like Go', () => {
    expect(encodeGoYaml({ a: [], b: {}, c: 1.5, d: 1e21, e: 12345678, f: null })).toBe(
      'a: []\nb: {}\nc: 1.5\nd: 1e+21\ne: 12345678\nf: null\n',
    );
  });

  it('orders keys like go-yaml: numbers inside keys numerically, non-letters first', () => {
    const keys = ['a10', 'a9', 'B', '_x', 'a'];
    expect([...keys].sort((x, y) => (yamlKeyLess(x, y) ? -1 : yamlKeyLess(y, x) ? 1 : 0))).toEqual([
      '_x',
      'B',
      'a',
      'a9',
      'a10',
    ]);
  });
});

describe('encodeGoYaml shortcuts', () => {
  it('write every string, key and nesting exactly as the general path does', () => {
    // Words close to the shortcut's edge: indicators, dots and dashes first, numbers, booleans, timestamps, colons,
    // spaces, non-ASCII, surrogate pairs.
    const piece = fc.constantFrom(
      ...'aZ09+/=_.-:#?&* \'"'.split(''),
      'true',
      'null',
      '0x1F',
      '1e3',
      '2026-01-01',
      '---',
      '...',
      'é',
      '😀',
      'QUJDRA==',
    );
    const word = fc.array(piece, { maxLength: 12, size: 'max' }).map((p) => p.join(''));
    const doc = fc.dictionary(word, fc.oneof(word, fc.array(word, { maxLength: 3 })), { maxKeys: 4 });
    fc.assert(
      fc.property(doc, (value) => {
        expect(encodeGoYaml(value)).toBe(encodeGoYamlWithoutShortcuts(value));
      }),
      { seed: 20261127, numRuns: Number(process.env.FUZZ_RUNS ?? 500) },
    );
  });

  it('counts columns in characters, not bytes, as libyaml does, when it decides where to fold', () => {
    // 3 + 78 = 81 columns before the first space: past 80, so the line breaks there; after 76 it breaks one
    // word later (at 81 columns again). Counting bytes would break both at the first space.
    expect(encodeGoYaml({ k: `${'é'.repeat(78)} a b` })).toBe(`k: ${'é'.repeat(78)}\n  a b\n`);
    expect(encodeGoYaml({ k: `${'é'.repeat(76)} a b` })).toBe(`k: ${'é'.repeat(76)} a\n  b\n`);
  });

  it('keeps the column right after long words, so the next folded string breaks where go-yaml breaks it', () => {
    const long = 'QUJD'.repeat(30);
    const value = { a: [long, `${long} ${'word '.repeat(30)}`], b: long };
    expect(encodeGoYaml(value)).toBe(encodeGoYamlWithoutShortcuts(value));
  });
});
