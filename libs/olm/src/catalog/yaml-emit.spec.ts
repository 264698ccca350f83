import { describe, expect, it } from 'vitest';
import { encodeGoYaml, yamlKeyLess } from './yaml-emit.js';

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
