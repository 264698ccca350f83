import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { YamlConversionError, yamlDocumentToJson } from '../../go-compat/yaml-json.js';
import { CatalogLoadError } from './errors.js';
import { parseCatalogContent } from './load.js';
import { serializeCatalog } from './write.js';

// A fixed seed keeps `npm test` reproducible; FUZZ_RUNS=100000 searches longer on demand.
const params = { seed: 20261126, numRuns: Number(process.env.FUZZ_RUNS ?? 100) };
// A long search is unbounded in time; the default runs stay within vitest's usual timeout.
const long = process.env.FUZZ_RUNS === undefined ? {} : { timeout: 0 };

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);
const release = fc.tuple(fc.nat({ max: 9 }), fc.nat({ max: 9 }), fc.nat({ max: 9 })).map((p) => p.join('.'));
const text = fc.string({ maxLength: 30 });

/** A valid catalog as the blobs of one file: packages with channels whose entries are bundles of the package. */
const catalogBlobs = fc
  .uniqueArray(
    fc.record({
      pkg: name,
      versions: fc.uniqueArray(release, { minLength: 1, maxLength: 4 }),
      channels: fc.uniqueArray(name, { minLength: 1, maxLength: 3 }),
      description: fc.option(text, { nil: undefined }),
      image: fc.stringMatching(/^registry\.test\/[a-z]{1,8}:v[0-9]$/),
    }),
    { selector: (p) => p.pkg, minLength: 1, maxLength: 3 },
  )
  .map((pkgs) =>
    pkgs.flatMap((p) => {
      const bundles = p.versions.map((v) => `${p.pkg}.v${v}`);
      return [
        {
          schema: 'olm.package',
          name: p.pkg,
          defaultChannel: p.channels[0],
          ...(p.description === undefined ? {} : { description: p.description }),
        },
        ...p.channels.map((c) => ({
          schema: 'olm.channel',
          package: p.pkg,
          name: c,
          entries: bundles.map((b, i) => (i === 0 ? { name: b } : { name: b, replaces: bundles[i - 1] })),
        })),
        ...p.versions.map((v, i) => ({
          schema: 'olm.bundle',
          package: p.pkg,
          name: bundles[i],
          image: p.image,
          properties: [{ type: 'olm.package', value: { packageName: p.pkg, version: v } }],
        })),
      ];
    }),
  );

const asJsonStream = (blobs: readonly unknown[]): string => blobs.map((b) => JSON.stringify(b)).join('\n');

/** Loading either gives a catalog or a CatalogLoadError for that file with a one-line reason. */
function loadsOrNamesTheFile(content: string, file: string): void {
  try {
    parseCatalogContent(content, file);
  } catch (err) {
    expect(err).toBeInstanceOf(CatalogLoadError);
    const load = err as CatalogLoadError;
    expect(load.problems[0]?.file).toBe(file);
    expect(load.message.length).toBeGreaterThan(0);
  }
}

describe('file-based catalogs, by property', long, () => {
  it('a valid catalog written as JSON or YAML reads back to the same catalog', () => {
    fc.assert(
      fc.property(
        catalogBlobs,
        fc.constantFrom('json', 'yaml') as fc.Arbitrary<'json' | 'yaml'>,
        (blobs, format) => {
          const first = parseCatalogContent(asJsonStream(blobs), 'catalog.json');
          const written = serializeCatalog(first, { format });
          const again = serializeCatalog(parseCatalogContent(written, `catalog.${format}`), { format });
          expect(again).toBe(written);
          expect(serializeCatalog(parseCatalogContent(written, 'x'), { format: 'json' })).toBe(
            serializeCatalog(first, { format: 'json' }),
          );
        },
      ),
      params,
    );
  });

  it('a catalog with bytes cut, inserted or swapped loads or fails naming its file', () => {
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('cut' as const), at: fc.nat(), length: fc.nat({ max: 20 }) }),
      fc.record({
        kind: fc.constant('insert' as const),
        at: fc.nat(),
        what: fc.oneof(
          fc.constantFrom(
            '{',
            '}',
            '[',
            ']',
            '"',
            ':',
            ',',
            '\n',
            '---\n',
            '*a',
            '&a ',
            'null',
            '1e999',
            '\\u0000',
          ),
          text,
        ),
      }),
    );
    fc.assert(
      fc.property(
        catalogBlobs,
        fc.constantFrom('json', 'yaml') as fc.Arbitrary<'json' | 'yaml'>,
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        (blobs, format, mutations) => {
          let content = serializeCatalog(parseCatalogContent(asJsonStream(blobs)), { format });
          for (const m of mutations) {
            const at = m.at % (content.length + 1);
            content =
              m.kind === 'cut'
                ? content.slice(0, at) + content.slice(at + m.length)
                : content.slice(0, at) + m.what + content.slice(at);
          }
          loadsOrNamesTheFile(content, `pkg/catalog.${format}`);
        },
      ),
      params,
    );
  });

  it('a field given a value of the wrong type loads or fails naming its file', () => {
    const wrong = fc.oneof(
      fc.constant(null),
      fc.integer(),
      fc.boolean(),
      fc.constant([]),
      fc.constant({}),
      text,
    );
    fc.assert(
      fc.property(catalogBlobs, fc.nat(), fc.nat(), wrong, (blobs, blobIndex, fieldIndex, value) => {
        const copy = blobs.map((b) => ({ ...b })) as Record<string, unknown>[];
        const blob = copy[blobIndex % copy.length]!;
        const keys = Object.keys(blob);
        blob[keys[fieldIndex % keys.length]!] = value;
        loadsOrNamesTheFile(asJsonStream(copy), 'catalog.json');
      }),
      params,
    );
  });
});

describe('the YAML reader, by property', long, () => {
  /** Nested flow or block collections of random depth, sometimes far past the depth limit. */
  const nested = fc
    .tuple(
      fc.integer({ min: 1, max: 20_000 }),
      fc.constantFrom('flow-seq', 'flow-map', 'block-seq', 'block-map'),
    )
    .map(([depth, style]) => {
      switch (style) {
        case 'flow-seq':
          return `${'['.repeat(depth)}${']'.repeat(depth)}`;
        case 'flow-map':
          return `${'{a: '.repeat(depth)}1${'}'.repeat(depth)}`;
        case 'block-seq':
          return (
            Array.from({ length: Math.min(depth, 2000) }, (_, i) => `${' '.repeat(i * 2)}- `).join('\n') + 'x'
          );
        default:
          return (
            Array.from({ length: Math.min(depth, 2000) }, (_, i) => `${' '.repeat(i * 2)}k${i}:`).join('\n') +
            ' x'
          );
      }
    });

  /** Alias fan-out: level i is a list of `width` aliases of level i-1. */
  const aliases = fc
    .tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 12 }))
    .map(([levels, width]) => {
      const lines = ['a0: &a0 [x]'];
      for (let i = 1; i <= levels; i++)
        lines.push(`a${i}: &a${i} [${Array.from({ length: width }, () => `*a${i - 1}`).join(', ')}]`);
      return lines.join('\n');
    });

  const yamlish = fc.string({
    unit: fc.constantFrom(...'-:[]{}&*!|>\'"#,? \n\tab01'.split('')),
    maxLength: 60,
  });

  it('returns a value or refuses with a one-line YamlConversionError, within a bounded time', () => {
    fc.assert(
      fc.property(fc.oneof(nested, aliases, yamlish), (doc) => {
        const started = performance.now();
        try {
          yamlDocumentToJson(doc);
        } catch (err) {
          expect(err).toBeInstanceOf(YamlConversionError);
          expect((err as Error).message).toMatch(/^error converting YAML to JSON: /);
          expect((err as Error).message).not.toContain('\n');
        }
        // Generous: a refusal must come from a limit, not from exhausting the expansion.
        expect(performance.now() - started).toBeLessThan(2_000);
      }),
      params,
    );
  });
});

describe('the JSON stream reader, by property', long, () => {
  it('any nesting depth loads or fails naming the file, without overflowing the stack', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200_000 }), fc.constantFrom('[', '{"a":'), (depth, open) => {
        const close = open === '[' ? ']' : '}';
        const doc = `{"schema":"olm.package","name":"p","x":${open.repeat(depth)}1${close.repeat(depth)}}`;
        loadsOrNamesTheFile(doc, 'deep.json');
      }),
      { ...params, numRuns: Math.min(params.numRuns, 30) },
    );
  });
});
