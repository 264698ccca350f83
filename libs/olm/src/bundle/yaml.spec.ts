import { describe, expect, it } from 'vitest';
import { parseYamlDocuments, readYamlStream, toGoYaml } from './yaml.js';

describe('YAML as the Go tools read and write it', () => {
  it('reads YAML 1.1 scalars as go-yaml v2 does, but keeps timestamps and 1:20 as strings', () => {
    const [doc] = parseYamlDocuments('a: yes\nb: on\nc: 0777\nd: 2001-12-14\ne: 1:20\nf: "yes"\n');
    expect(doc).toStrictEqual({
      ok: true,
      line: 1,
      value: { a: true, b: true, c: 511, d: '2001-12-14', e: '1:20', f: 'yes' },
    });
  });

  it('quotes strings YAML 1.1 would misread, sorts keys and escapes YAML 1.1 line breaks', () => {
    expect(toGoYaml({ b: ['yes', 'on', '0777', 'plain'], a: 'x\u2028y' })).toBe(
      'a: "x\\Ly"\nb:\n- "yes"\n- "on"\n- "0777"\n- plain\n',
    );
    const [round] = parseYamlDocuments(toGoYaml({ a: 'x\u2028y\u0085z' }));
    expect(round).toMatchObject({ value: { a: 'x\u2028y\u0085z' } });
  });

  it('reports where a document is malformed', () => {
    const [bad] = parseYamlDocuments('a: 1\nb:\n  - x\n - y\n');
    expect(bad).toMatchObject({ ok: false, line: 4 });
  });

  it('tells a document refused by a reader limit from a malformed one', () => {
    const bomb = `a: &a [x, x, x, x, x, x, x, x, x, x]\n${'bcdefgh'
      .split('')
      .map((k, i) => `${k}: &${k} [${`*${'abcdefg'[i]}, `.repeat(10)}]`)
      .join('\n')}\n`;
    expect(parseYamlDocuments(bomb)).toStrictEqual([
      { ok: false, line: 1, reason: 'document contains excessive aliasing', limit: 'aliases' },
    ]);
    const [deep] = parseYamlDocuments(`x: ${'['.repeat(600)}${']'.repeat(600)}\n`);
    expect(deep).toMatchObject({ ok: false, limit: 'depth' });
    const [bad] = parseYamlDocuments('a: 1\nb:\n  - x\n - y\n');
    expect(bad).not.toHaveProperty('limit');
  });
});

describe('readYamlStream', () => {
  it("gives every non-empty document, or the first problem in the bundle reader's words", () => {
    expect(readYamlStream('a: yes\n---\n---\n~\n---\nb: 1\n')).toEqual([{ a: true }, { b: 1 }]);
    expect(() => readYamlStream(`a: 1\n---\nx: ${'['.repeat(600)}${']'.repeat(600)}\n`)).toThrow(
      /^yaml: line \d+: exceeded max depth of 500$/,
    );
    expect(() => readYamlStream('a: 1\n---\na: 1\nb:\n  - x\n - y\n')).toThrow(/^malformed YAML at line 6: /);
  });
});
