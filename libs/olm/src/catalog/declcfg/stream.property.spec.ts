import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCatalogStream, decodeCatalogStreamByScanning } from './stream.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('decodeCatalogStream reads laid-out JSON as the scanner does', () => {
  const text = fc.string({
    unit: fc.constantFrom('a', 'S', '}', '{', '"', '\\', '\n', ' ', ':'),
    maxLength: 6,
  });
  const key = fc.oneof(text, fc.constantFrom('schema', 'Schema', 'name', 'package'));
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      text,
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('node'), { maxLength: 3 }),
      fc.dictionary(key, tie('node'), { maxKeys: 4 }),
    ),
  })).node;
  const document = fc.oneof(
    fc.dictionary(key, value, { maxKeys: 5 }),
    fc.record({ schema: fc.constantFrom('olm.package', 'olm.bundle', 'x'), name: text, nested: value }),
    value,
  );
  // How a document is laid out: as opm writes it, compact, tab-indented, or with every line flush left, so that
  // the first `}` at the start of a line closes a nested object, not the document.
  const layout = fc.constantFrom(
    (v: unknown) => JSON.stringify(v, null, 4),
    (v: unknown) => JSON.stringify(v),
    (v: unknown) => JSON.stringify(v, null, '\t'),
    (v: unknown) => JSON.stringify(v, null, 2).replace(/\n +/g, '\n'),
  );
  const separator = fc.constantFrom('', '\n', ' \n', '\r\n', '\t', '\n\n');
  // Broken text a file may end with: cut objects, stray brackets, YAML, a closing brace on its own line.
  const tail = fc.constantFrom('', '{"schema":', '\n}', '}\n', 'schema: a\n', '{"a":1,}\n}', '[1,', 'x');
  const stream = fc
    .tuple(fc.array(fc.tuple(document, layout, separator), { minLength: 1, maxLength: 4 }), tail)
    .map(([docs, end]) => docs.map(([doc, lay, sep]) => `${lay(doc) ?? ''}${sep}`).join('') + end);

  it('for any stream of documents, laid out in any way and ending in anything', () => {
    fc.assert(
      fc.property(stream, (content) => {
        expect(decodeCatalogStream(bytes(content))).toEqual(decodeCatalogStreamByScanning(bytes(content)));
      }),
      { seed: 20261127, numRuns: Number(process.env.FUZZ_RUNS ?? 2000) },
    );
  });

  it('leaves objects nested deeper than Go allows to the scanner', () => {
    const deep = `{"schema":"a","x":${'['.repeat(10_001)}${']'.repeat(10_001)}\n}`;
    const decoded = decodeCatalogStream(bytes(deep));
    expect(decoded.error).toContain('exceeded max depth');
    expect(decoded).toEqual(decodeCatalogStreamByScanning(bytes(deep)));
  });
});
