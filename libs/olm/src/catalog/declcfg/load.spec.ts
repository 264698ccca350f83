import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listCatalogFiles } from './catalog-files.js';
import { CatalogLoadError } from './errors.js';
import { type CatalogFileCache, loadCatalog, parseCatalogContent } from './load.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'opkit-load-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function put(rel: string, content: string): Promise<void> {
  await mkdir(join(dir, rel, '..'), { recursive: true });
  await writeFile(join(dir, rel), content);
}

describe('loadCatalog (opm declcfg.LoadFS rules)', () => {
  it('loads every file whatever its extension, hidden files and sub-directories included', async () => {
    await put('a.yaml', 'schema: olm.package\nname: a\n');
    await put('.hidden/b.txt', '{"schema":"olm.package","name":"b"}');
    await put('x/y/z', 'schema: olm.package\nname: c\n');
    const catalog = await loadCatalog(dir);
    expect(catalog.packages.map((p) => p.name)).toEqual(['b', 'a', 'c']);
    expect(catalog.packages[0]?.source).toEqual({ file: '.hidden/b.txt', index: 0 });
  });

  it('skips .indexignore files and what they exclude', async () => {
    await put('.indexignore', 'ignored/\n');
    await put('ignored/broken.yaml', 'schema: [\n');
    await put('ok.yaml', 'schema: olm.package\nname: a\n');
    expect(await listCatalogFiles(dir)).toEqual(['ok.yaml']);
  });

  it('refuses a file over the size limit before reading it, naming the file and the limit', async () => {
    await put('ok.yaml', 'schema: olm.package\nname: a\n');
    await put('big/catalog.json', `${JSON.stringify({ schema: 'olm.package', name: 'b' })}\n`.repeat(10));
    const load = loadCatalog(dir, { maxFileBytes: 100 });
    await expect(load).rejects.toBeInstanceOf(CatalogLoadError);
    await expect(load).rejects.toMatchObject({
      problems: [
        {
          file: 'big/catalog.json',
          message: 'read big/catalog.json: file of 360 bytes exceeds the limit of 100 bytes',
        },
      ],
    });
  });

  it('keeps blobs of unknown schemas as others', async () => {
    await put('c.yaml', 'schema: example.com/thing\npackage: p\nname: t\nx: 1\n');
    const { others } = await loadCatalog(dir);
    expect(others).toMatchObject([{ schema: 'example.com/thing', package: 'p', name: 't', blob: { x: 1 } }]);
  });

  it('decodes blobs with Go rules: case-insensitive fields, unknown fields dropped', async () => {
    await put(
      'c.yaml',
      'schema: olm.channel\npackage: p\nName: s\nEntries:\n  - Name: a\n    SkipRange: "<1.0.0"\nextra: 1\n',
    );
    const [channel] = (await loadCatalog(dir)).channels;
    expect(channel).toMatchObject({ name: 's', entries: [{ name: 'a', skipRange: '<1.0.0' }] });
  });

  it('reports the first problem of every broken file with opm messages', async () => {
    await put('a.yaml', 'name: x\n');
    await put('b.yaml', 'schema: olm.channel\nentries: 5\n');
    const err = await loadCatalog(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CatalogLoadError);
    expect((err as CatalogLoadError).problems).toEqual([
      { file: 'a.yaml', message: `object '{"name":"x"}\n' is missing root schema field` },
      {
        file: 'b.yaml',
        message:
          'parse channel: json: cannot unmarshal number into Go struct field Channel.entries of type []declcfg.ChannelEntry',
      },
    ]);
  });

  it('fails on a symlink to a directory, which opm reads as a file', async () => {
    await mkdir(join(dir, 'real'));
    await symlink(join(dir, 'real'), join(dir, 'link'));
    const err = (await loadCatalog(dir).catch((e: unknown) => e)) as CatalogLoadError;
    expect(err.problems[0]?.message).toBe(`read ${join(dir, 'link')}: is a directory`);
  });

  it('names a dangling symlink by its relative path, like os.DirFS', async () => {
    await symlink(join(dir, 'missing'), join(dir, 'dangling'));
    const err = (await loadCatalog(dir).catch((e: unknown) => e)) as CatalogLoadError;
    expect(err.problems[0]?.message).toBe('open dangling: no such file or directory');
  });

  it('refuses, by name, a FIFO, a link to /dev/zero and a chain of links out of the directory, reading none', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'opkit-load-outside-'));
    try {
      await writeFile(join(outside, 'secret.yaml'), 'schema: olm.package\nname: host-secret\n');
      await put('sub/a.yaml', 'schema: olm.package\nname: a\n');
      execFileSync('mkfifo', [join(dir, 'fifo.yaml')]);
      await symlink('/dev/zero', join(dir, 'zero.json'));
      // On paper `sub/up/..` is `sub`; on disk `sub/up` is the catalog directory and `..` its parent.
      await symlink('..', join(dir, 'sub', 'up'));
      await symlink(`up/../${basename(outside)}/secret.yaml`, join(dir, 'sub', 'secret.yaml'));
      const err = (await loadCatalog(dir).catch((e: unknown) => e)) as CatalogLoadError;
      expect(err.problems).toEqual([
        { file: 'fifo.yaml', message: 'open fifo.yaml: not a regular file but a FIFO' },
        {
          file: 'sub/secret.yaml',
          message: 'open sub/secret.yaml: a symlink on its path leads out of the directory',
        },
        { file: 'sub/up', message: `read ${dir}/sub/up: is a directory` },
        { file: 'zero.json', message: 'open zero.json: a symlink on its path leads out of the directory' },
      ]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('refuses a path that is not a directory', async () => {
    await put('f', '');
    const err = (await loadCatalog(join(dir, 'f')).catch((e: unknown) => e)) as CatalogLoadError;
    expect(err.code).toBe('CATALOG_NOT_A_DIRECTORY');
    expect(err.message).toBe(`"${join(dir, 'f')}" is not a directory`);
  });

  it('checks olm.bundle.object data while loading', () => {
    const text =
      '{"schema":"olm.bundle","name":"b","package":"p","properties":[{"type":"olm.bundle.object"}]}';
    expect(() => parseCatalogContent(text)).toThrow(
      'read bundle objects: package "p", bundle "b": parse property at index 0 as bundle object: unexpected end of JSON input',
    );
  });
});

describe('loadCatalog with a file cache (two revisions of one catalog)', () => {
  it('decodes a file the cache holds with the same bytes once, and one with other bytes again', async () => {
    const fileCache: CatalogFileCache = new Map();
    await put('a/catalog.yaml', 'schema: olm.package\nname: a\n');
    await put('b/catalog.yaml', 'schema: olm.package\nname: b\n');
    const first = await loadCatalog(dir, { fileCache });
    await put('b/catalog.yaml', 'schema: olm.package\nname: b\ndefaultChannel: stable\n');
    const second = await loadCatalog(dir, { fileCache });
    // The unchanged file's blobs are the very objects of the first load; the changed one is new.
    expect(second.packages[0]).toBe(first.packages[0]);
    expect(second.packages[1]).not.toBe(first.packages[1]);
    expect(second.packages[1]?.defaultChannel).toBe('stable');
  });

  it('keeps no broken file, so its problem is reported on every load', async () => {
    const fileCache: CatalogFileCache = new Map();
    await put('broken.yaml', 'schema: [\n');
    await expect(loadCatalog(dir, { fileCache })).rejects.toThrow(CatalogLoadError);
    expect(fileCache.size).toBe(0);
    await expect(loadCatalog(dir, { fileCache })).rejects.toThrow(CatalogLoadError);
  });
});
