import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { byteOrder } from '../../go-compat/go-format.js';
import { goSortSlice } from '../../go-compat/index.js';
import { CatalogWriteError } from './errors.js';
import { loadCatalog } from './load.js';
import { oneChannel } from './spec-fixtures.js';
import type { BundleBlob } from './types.js';
import { catalogFiles, normalizeForRender, serializeCatalog, writeCatalog } from './write.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'opkit-write-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function sample() {
  const c = oneChannel([{ name: 'foo.v1.0.0' }, { name: 'foo.v1.1.0', replaces: 'foo.v1.0.0' }]);
  c.others.push({
    schema: 'example.com/index',
    package: '',
    name: 'root',
    blob: { schema: 'example.com/index', z: 1, a: 2 },
  });
  return c;
}

describe('serializeCatalog', () => {
  it('writes Go struct field order, 4-space indentation and sorted map keys', () => {
    const out = serializeCatalog(sample());
    expect(
      out.startsWith(
        '{\n    "schema": "olm.package",\n    "name": "foo",\n    "defaultChannel": "stable"\n}\n',
      ),
    ).toBe(true);
    expect(out.endsWith('{\n    "a": 2,\n    "schema": "example.com/index",\n    "z": 1\n}\n')).toBe(true);
  });

  it('writes YAML documents with sorted keys, each preceded by ---', () => {
    const out = serializeCatalog(sample(), { format: 'yaml' });
    expect(out.split('---\n').length - 1).toBe(5);
    expect(out).toContain(
      '---\nentries:\n- name: foo.v1.0.0\n- name: foo.v1.1.0\n  replaces: foo.v1.0.0\nname: stable\n',
    );
  });

  it('writes every property as type then value, whatever its keys and their order', () => {
    const c = oneChannel([{ name: 'foo.v1.0.0' }]);
    const bundle = c.bundles[0]!;
    const value = { packageName: 'foo', version: '1.0.0' };
    const expected = JSON.stringify({ type: 'olm.package', value }, null, '    ')
      .split('\n')
      .map((line, i) => (i === 0 ? line : `        ${line}`))
      .join('\n');
    const written = (p: object) => {
      bundle.properties = [p as BundleBlob['properties'][number]];
      return serializeCatalog(c);
    };
    expect(written({ type: 'olm.package', value })).toContain(expected);
    expect(written({ value, type: 'olm.package' })).toContain(expected);
    expect(written({ type: 'olm.package', value, extra: 1 })).toContain(expected);
    expect(written({ type: 'olm.package' })).toContain('"type": "olm.package",\n            "value": null');
  });

  it('is independent of the order blobs were loaded in', () => {
    const a = sample();
    const b = sample();
    b.bundles.reverse();
    expect(serializeCatalog(b)).toBe(serializeCatalog(a));
  });

  it('moves olm.bundle.object and olm.csv.metadata properties last, like opm render', () => {
    const c = oneChannel([{ name: 'foo.v1.0.0' }]);
    c.bundles[0]!.properties.unshift({ type: 'olm.csv.metadata', value: { displayName: 'Foo' } });
    const types = (s: string) => [...s.matchAll(/"type": "([^"]+)"/g)].map((m) => m[1]);
    expect(types(serializeCatalog(c))).toEqual(['olm.package', 'olm.csv.metadata']);
    expect(types(serializeCatalog(c, { normalize: false }))).toEqual(['olm.csv.metadata', 'olm.package']);
  });
});

describe('normalizeForRender', () => {
  // opm render's rule, applied to every bundle: object properties after the others (a stable partition), related
  // images through sort.Slice by image. Bundles already in that form are kept; the rest must come out the same.
  const opmRender = (b: BundleBlob): BundleBlob => ({
    ...b,
    properties: [
      ...b.properties.filter((p) => !OBJECT_TYPES.includes(p.type)),
      ...b.properties.filter((p) => OBJECT_TYPES.includes(p.type)),
    ],
    ...(b.relatedImages
      ? { relatedImages: goSortSlice([...b.relatedImages], (x, y) => byteOrder(x.image, y.image) < 0) }
      : {}),
  });
  const OBJECT_TYPES = ['olm.bundle.object', 'olm.csv.metadata'];
  const property = fc.record({
    type: fc.constantFrom('olm.package', 'olm.gvk', ...OBJECT_TYPES),
    value: fc.nat({ max: 9 }),
  });
  const relatedImage = fc.record({
    name: fc.constantFrom('', 'a', 'b'),
    image: fc.constantFrom('x', 'y', 'z'),
  });

  it('writes every bundle as opm render does, whether it needed changes or not', () => {
    fc.assert(
      fc.property(
        fc.array(property, { maxLength: 5 }),
        fc.option(
          // Often already in image order, with images repeated: the case a shortcut could get wrong.
          fc
            .tuple(fc.array(relatedImage, { maxLength: 60 }), fc.boolean())
            .map(([images, sorted]) =>
              sorted ? images.sort((x, y) => byteOrder(x.image, y.image)) : images,
            ),
          { nil: undefined },
        ),
        (properties, relatedImages) => {
          const c = oneChannel([{ name: 'foo.v1.0.0' }]);
          const bundle: BundleBlob = { ...c.bundles[0]!, properties, relatedImages };
          c.bundles[0] = bundle;
          expect(normalizeForRender(c).bundles[0]).toEqual(opmRender(bundle));
        },
      ),
      { seed: 20261128, numRuns: 2000 },
    );
  });
});

describe('writeCatalog', () => {
  it('writes one directory per package and package-less blobs at the root, and reads back the same catalog', async () => {
    const out = join(dir, 'catalog');
    expect(await writeCatalog(out, sample())).toEqual(['foo/catalog.json', 'catalog.json']);
    const again = await loadCatalog(out);
    expect(serializeCatalog(again)).toBe(serializeCatalog(sample()));
  });

  it('is byte-stable across runs', async () => {
    await writeCatalog(join(dir, 'a'), sample(), { format: 'yaml' });
    await writeCatalog(join(dir, 'b'), sample(), { format: 'yaml' });
    const read = (d: string) => readFile(join(dir, d, 'foo', 'catalog.yaml'), 'utf8');
    expect(await read('a')).toBe(await read('b'));
  });

  it("replaces its packages' directories in an earlier catalog, leaves other packages alone and no temporary directory behind", async () => {
    const out = join(dir, 'catalog');
    await writeCatalog(out, sample());
    await writeFile(join(out, 'foo', 'stale.json'), '{}');
    await mkdir(join(out, 'bar'));
    await writeFile(join(out, 'bar', 'catalog.json'), '{"schema":"olm.package","name":"bar"}\n');
    await writeCatalog(out, sample());
    expect((await readdir(out)).sort()).toEqual(['bar', 'catalog.json', 'foo']);
    expect(await readdir(join(out, 'foo'))).toEqual(['catalog.json']);
    expect(await readFile(join(out, 'bar', 'catalog.json'), 'utf8')).toBe(
      '{"schema":"olm.package","name":"bar"}\n',
    );
    expect(await readdir(dir)).toEqual(['catalog']);
  });

  it('refuses a non-empty directory that is not a catalog, and writes nothing', async () => {
    const out = join(dir, 'project');
    await mkdir(join(out, 'src'), { recursive: true });
    await writeFile(join(out, 'package.json'), '{}');
    await expect(writeCatalog(out, sample(), { output: { name: '--out' } })).rejects.toThrow(
      `--out ${out}: not empty and not a catalog (a catalog holds <package>/catalog.json directories only); name an empty or new directory`,
    );
    expect((await readdir(out)).sort()).toEqual(['package.json', 'src']);
    expect(await readdir(dir)).toEqual(['project']);
  });

  it('refuses a package name that would escape the output directory and writes nothing', async () => {
    const c = oneChannel([{ name: 'foo.v1.0.0' }]);
    c.packages[0]!.name = '../evil';
    await expect(writeCatalog(join(dir, 'out'), c)).rejects.toBeInstanceOf(CatalogWriteError);
    expect(() => catalogFiles(c)).toThrow(
      'invalid package name "../evil": must be a single local path element',
    );
    expect(await readdir(dir)).toEqual([]);
  });
});
