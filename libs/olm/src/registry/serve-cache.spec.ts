import { createHash } from 'node:crypto';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { credentials, makeGenericClientConstructor } from '@grpc/grpc-js';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CatalogLoadError } from '../catalog/declcfg/errors.js';
import type { ApiBundle } from './api.js';
import { withManifestsRead } from './bundle-manifests.js';
import { RegistryError } from './errors.js';
import { registryService, startRegistryServer } from './grpc-server.js';
import { type LoadedRegistry, loadRegistry } from './load-registry.js';
import type { RegistryQueries } from './queries.js';
import { catalogDigest, SERVE_CACHE_FILE } from './serve-cache.js';

const corpus = join(import.meta.dirname, '..', '..', 'test', 'catalog', 'corpus');
const validCatalogs = readdirSync(corpus).filter((name) => name.startsWith('valid-'));
const scratch = mkdtempSync(join(tmpdir(), 'opkit-serve-cache-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every answer the registry API gives for a catalog: the methods over every package, channel, bundle and API. */
function everyAnswer(q: RegistryQueries): unknown[] {
  const answer = (f: () => unknown): unknown => {
    try {
      return f();
    } catch (err) {
      return { error: (err as Error).message };
    }
  };
  const out: unknown[] = [q.listPackages()];
  const bundles = [...q.listBundles()];
  out.push(bundles);
  for (const name of q.listPackages()) {
    const pkg = q.getPackage(name);
    out.push(pkg);
    for (const ch of pkg.channels) out.push(answer(() => q.getBundleForChannel(name, ch.name)));
  }
  for (const b of bundles) {
    out.push(answer(() => q.getBundle(b.packageName, b.channelName, b.csvName)));
    out.push(answer(() => q.getChannelEntriesThatReplace(b.csvName)));
    out.push(answer(() => q.getBundleThatReplaces(b.csvName, b.packageName, b.channelName)));
    for (const api of b.providedApis) {
      const request = { group: api.group, version: api.version, kind: api.kind, plural: api.plural };
      out.push(answer(() => q.getChannelEntriesThatProvide(request)));
      out.push(answer(() => q.getLatestChannelEntriesThatProvide(request)));
      out.push(answer(() => q.getDefaultBundleThatProvides(request)));
    }
  }
  return out;
}

describe('the serve cache', () => {
  it.each(validCatalogs)('serves %s from the cache exactly as from the catalog', async (name) => {
    const dir = join(scratch, name);
    cpSync(join(corpus, name), dir, { recursive: true });
    const cacheDir = join(scratch, `${name}-cache`);
    for (const inlineBundles of [false, true]) {
      const fresh = await loadRegistry(dir, { inlineBundles, bundlesDir: join(dir, 'bundles') }).catch(
        (err: Error) => err,
      );
      // Some catalogs cannot be served inline (no objects, no bundles directory): the cache must refuse alike.
      const written = await loadRegistry(dir, {
        inlineBundles,
        bundlesDir: join(dir, 'bundles'),
        cacheDir,
      }).catch((err: Error) => err);
      if (fresh instanceof Error) {
        expect((written as Error).message).toBe(fresh.message);
        continue;
      }
      if (written instanceof Error) throw written;
      expect(written.cache).toEqual({ used: false, written: true, why: expect.any(String) });
      const cached = await loadRegistry(dir, {
        inlineBundles,
        bundlesDir: join(dir, 'bundles'),
        cacheDir,
        enforceCacheIntegrity: true,
      });
      expect(cached.cache).toEqual({ used: true });
      expect([cached.packages, cached.bundles]).toEqual([fresh.packages, fresh.bundles]);
      expect(everyAnswer(cached.queries)).toEqual(everyAnswer(fresh.queries));
      await Promise.all([fresh.close(), written.close(), cached.close()]);
    }
  });

  it('is not used for a changed catalog, other options or a damaged file; enforced, it refuses in one line', async () => {
    const dir = join(scratch, 'changing');
    cpSync(join(corpus, 'valid-bundle-object-without-image'), dir, { recursive: true });
    const cacheDir = join(scratch, 'changing-cache');
    expect((await loadRegistry(dir, { cacheDir })).cache).toMatchObject({ why: 'no cache yet' });
    const used = await loadRegistry(dir, { cacheDir });
    expect(used.cache).toEqual({ used: true });
    await used.close();

    const file = readdirSync(dir, { recursive: true, encoding: 'utf8' }).find((f) =>
      /\.(json|ya?ml)$/.test(f),
    )!;
    writeFileSync(join(dir, file), `${readFileSync(join(dir, file), 'utf8')}\n`);
    await expect(loadRegistry(dir, { cacheDir, enforceCacheIntegrity: true })).rejects.toThrow(
      new RegistryError(
        'REGISTRY_CACHE_STALE',
        `serve cache ${cacheDir} cannot be used for ${dir}: the catalog changed since it was written; rebuild it with --cache-only, or serve without --cache-enforce-integrity`,
      ),
    );
    expect((await loadRegistry(dir, { cacheDir })).cache).toMatchObject({
      why: 'the catalog changed since it was written',
    });
    expect((await loadRegistry(dir, { cacheDir, inlineBundles: true, bundlesDir: dir })).cache).toMatchObject(
      {
        why: 'it was written for other serving options (--inline-bundles, --bundles-dir)',
      },
    );

    writeFileSync(join(cacheDir, SERVE_CACHE_FILE), 'not a cache');
    expect((await loadRegistry(dir, { cacheDir })).cache).toMatchObject({
      used: false,
      why: `${join(cacheDir, SERVE_CACHE_FILE)}: it is not a serve cache (it is too short)`,
    });
    const rebuilt = await loadRegistry(dir, { cacheDir });
    expect(rebuilt.cache).toEqual({ used: true });
    await rebuilt.close();
  });

  it("refuses a catalog file it may not read with the loader's error, naming the file", async () => {
    const dir = join(scratch, 'link-out');
    cpSync(join(corpus, 'valid-simple'), dir, { recursive: true });
    const outside = join(scratch, 'outside.json');
    writeFileSync(outside, '{}');
    symlinkSync(outside, join(dir, 'zz-link.json'));
    const refused = await loadRegistry(dir, { cacheDir: join(scratch, 'link-out-cache') }).catch(
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(CatalogLoadError);
    expect((refused as CatalogLoadError).problems).toEqual([
      { file: 'zz-link.json', message: expect.stringContaining('zz-link.json') },
    ]);
    // Without a cache the loader refuses the same file alike.
    const loaded = await loadRegistry(dir).catch((err: unknown) => err);
    expect((loaded as CatalogLoadError).problems).toEqual((refused as CatalogLoadError).problems);
  });

  it('keys the cache by the digest caches were always keyed by: each file, length-prefixed, in load order', async () => {
    const dir = join(scratch, 'digest');
    mkdirSync(join(dir, 'b'), { recursive: true });
    // Larger than the pieces it is read in, so that the digest is made of several.
    const large = `${'x'.repeat(200_000)}\n`;
    writeFileSync(join(dir, 'b', 'catalog.yaml'), large);
    writeFileSync(join(dir, 'a.json'), '{}\n');
    const expected = createHash('sha256');
    for (const [file, content] of [
      ['a.json', '{}\n'],
      ['b/catalog.yaml', large],
    ] as const) {
      expected.update(`${Buffer.byteLength(file)}:${file}\n${Buffer.byteLength(content)}\n`);
      expected.update(content);
    }
    expect(await catalogDigest(dir)).toBe(expected.digest('hex'));
  });

  it('does not stop serving when the cache cannot be written', async () => {
    const dir = join(scratch, 'unwritable');
    cpSync(join(corpus, 'valid-simple'), dir, { recursive: true });
    const notADirectory = join(scratch, 'a-file');
    writeFileSync(notADirectory, '');
    const loaded = await loadRegistry(dir, { cacheDir: notADirectory });
    expect(loaded.cache).toMatchObject({
      used: false,
      written: false,
      writeError: expect.stringMatching(/EEXIST|ENOTDIR/),
    });
    expect(loaded.queries.listPackages().length).toBeGreaterThan(0);
  });
});

/** A catalog whose bundle carries its manifests (no image), served from a cache written for it. */
async function cachedCatalog(
  name: string,
): Promise<{ dir: string; cacheDir: string; file: string; fresh: LoadedRegistry }> {
  const dir = join(scratch, name);
  cpSync(join(corpus, 'valid-bundle-object-without-image'), dir, { recursive: true });
  const cacheDir = join(scratch, `${name}-cache`);
  const fresh = await loadRegistry(dir, { cacheDir });
  expect(fresh.cache).toMatchObject({ written: true });
  return { dir, cacheDir, file: join(cacheDir, SERVE_CACHE_FILE), fresh };
}

/** Rewrites the model at the head of a cache file, its manifests after it left as they are. */
function rewriteModel(file: string, change: (model: Record<string, unknown>) => void): void {
  const bytes = readFileSync(file);
  const length = bytes.readUInt32LE(0);
  const model = deserialize(bytes.subarray(4, 4 + length)) as Record<string, unknown>;
  change(model);
  const header = serialize(model);
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32LE(header.length);
  writeFileSync(file, Buffer.concat([prefix, header, bytes.subarray(4 + length)]));
}

interface Place {
  offset: unknown;
  lengths: unknown;
  objects: unknown;
  csv: unknown;
}

/** Every manifest place in a decoded cache model. */
function places(model: Record<string, unknown>): Place[] {
  const out: Place[] = [];
  for (const pkg of model.packages as {
    channels: Map<string, { entries: Map<string, { content?: Place }> }>;
  }[]) {
    for (const ch of pkg.channels.values()) {
      for (const e of ch.entries.values()) if (e.content !== undefined) out.push(e.content);
    }
  }
  return out;
}

/** Open file descriptors of this process (Linux). */
const openFds = (): number => readdirSync('/proc/self/fd').length;

describe('a damaged serve cache', () => {
  const damages: [string, (p: Place) => void, RegExp][] = [
    ['an offset that is not a number', (p) => (p.offset = Number.NaN), /offset NaN/],
    ['a negative offset', (p) => (p.offset = -1), /offset -1/],
    ['a length past the end of the file', (p) => (p.lengths = [1 << 30]), /ends at byte/],
    [
      'a length that is not whole',
      (p) => (p.lengths = (p.lengths as number[]).map((n) => n + 0.5)),
      /length/,
    ],
    ['a CSV index past the objects', (p) => (p.csv = (p.objects as number) + 1), /CSV index/],
    ['a CSV index below -1', (p) => (p.csv = -2), /CSV index -2/],
    ['lengths of other objects', (p) => (p.lengths = []), /no length for each/],
    ['an object count that is not a count', (p) => (p.objects = 'x'), /objects x/],
  ];

  it.each(damages)(
    'with %s is stale, naming the file and the bundle; enforced, refused in one line',
    async (_what, damage, problem) => {
      const { dir, cacheDir, file, fresh } = await cachedCatalog(
        `damaged-${damages.findIndex((d) => d[1] === damage)}`,
      );
      await fresh.close();
      rewriteModel(file, (model) => {
        const [first] = places(model);
        expect(first).toBeDefined();
        if (first !== undefined) damage(first);
      });
      const loaded = await loadRegistry(dir, { cacheDir });
      expect(loaded.cache).toMatchObject({ used: false, written: true });
      const why = (loaded.cache as { why: string }).why;
      expect(why).toMatch(
        new RegExp(
          `^${file.replaceAll(/[.\\/]/g, '\\$&')}: the manifests of bundle \\S+ of package \\S+ are not in it \\(`,
        ),
      );
      expect(why).toMatch(problem);
      await loaded.close();

      rewriteModel(file, (model) => {
        const [first] = places(model);
        if (first !== undefined) damage(first);
      });
      const refused = await loadRegistry(dir, { cacheDir, enforceCacheIntegrity: true }).catch(
        (e: Error) => e,
      );
      expect(refused).toBeInstanceOf(RegistryError);
      expect((refused as Error).message).toContain(file);
      expect((refused as Error).message).not.toContain('\n');
    },
  );

  it.runIf(process.platform === 'linux')(
    'with a model not shaped as written is stale, and its file is closed',
    async () => {
      const { dir, cacheDir, file, fresh } = await cachedCatalog('malformed-model');
      await fresh.close();
      rewriteModel(file, (model) => {
        model.packages = [{ name: 'p', channels: 5 }];
      });
      const before = openFds();
      const loaded = await loadRegistry(dir, { cacheDir, enforceCacheIntegrity: true }).catch(
        (e: Error) => e,
      );
      expect(openFds()).toBe(before);
      expect((loaded as Error).message).toMatch(
        new RegExp(
          `cannot be used for .*: ${file.replaceAll(/[.\\/]/g, '\\$&')}: its model is malformed \\(`,
        ),
      );
    },
  );

  it('of an older format is named as such, with the command that rebuilds it', async () => {
    const { dir, cacheDir, file, fresh } = await cachedCatalog('older-format');
    await fresh.close();
    // The formats before opkit-serve-cache/3 were the whole file as one V8 serialization.
    writeFileSync(file, serialize({ format: 'opkit-serve-cache/2', key: {}, packages: [] }));
    const rebuild = `\`opkit catalog serve ${dir} --cache-dir ${cacheDir} --cache-only\``;
    await expect(
      loadRegistry(dir, { cacheDir, enforceCacheIntegrity: true, rebuildCommand: rebuild }),
    ).rejects.toThrow(
      new RegistryError(
        'REGISTRY_CACHE_STALE',
        `serve cache ${cacheDir} cannot be used for ${dir}: ${file}: it is an older opkit serve cache format (opkit-serve-cache/2, before opkit-serve-cache/3); rebuild it with ${rebuild}, or serve without --cache-enforce-integrity`,
      ),
    );
    // Without enforcement it is rebuilt.
    const rebuilt = await loadRegistry(dir, { cacheDir });
    expect(rebuilt.cache).toMatchObject({ used: false, written: true });
    await rebuilt.close();
    const used = await loadRegistry(dir, { cacheDir });
    expect(used.cache).toEqual({ used: true });
    await used.close();
  });
});

describe('a registry served from its cache', () => {
  it.runIf(process.platform === 'linux')(
    'closes its cache file; its manifests are not read after',
    async () => {
      const { dir, cacheDir, file, fresh } = await cachedCatalog('closing');
      await fresh.close();
      const before = openFds();
      const cached = await loadRegistry(dir, { cacheDir });
      expect(cached.cache).toEqual({ used: true });
      expect(openFds()).toBe(before + 1);
      const [bundle] = [...cached.queries.listBundles()];
      await cached.close();
      expect(openFds()).toBe(before);
      expect(() => bundle?.object).toThrow(`serve cache ${file} is closed: the server is stopping`);
    },
  );

  it('answers GetBundle and ListBundles over gRPC as the catalog does, reading each bundle once, asynchronously', async () => {
    const { dir, cacheDir, fresh } = await cachedCatalog('grpc');
    const cached = await loadRegistry(dir, { cacheDir });
    expect(cached.cache).toEqual({ used: true });
    const server = await startRegistryServer(cached.queries, { host: '127.0.0.1', port: 0 });
    const Client = makeGenericClientConstructor(registryService, 'Registry');
    const client = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure()) as unknown as Record<
      string,
      (...args: unknown[]) => unknown
    >;
    try {
      const listed = await new Promise<ApiBundle[]>((resolve, reject) => {
        const out: ApiBundle[] = [];
        const call = client.ListBundles?.({}) as NodeJS.ReadableStream;
        call.on('data', (b: ApiBundle) => out.push(b));
        call.on('end', () => resolve(out));
        call.on('error', reject);
      });
      const expected = await Promise.all([...fresh.queries.listBundles()].map((b) => withManifestsRead(b)));
      expect(listed.map(comparable)).toEqual(expected.map(comparable));
      expect(listed.some((b) => b.object.length > 0)).toBe(true);

      const [first] = expected;
      if (first === undefined) throw new Error('no bundle');
      const got = await new Promise<ApiBundle>((resolve, reject) =>
        client.GetBundle?.(
          { pkgName: first.packageName, channelName: first.channelName, csvName: first.csvName },
          (err: Error | null, b: ApiBundle) => (err ? reject(err) : resolve(b)),
        ),
      );
      expect(comparable(got)).toEqual(
        comparable(fresh.queries.getBundle(first.packageName, first.channelName, first.csvName)),
      );
    } finally {
      (client as unknown as { close(): void }).close();
      await server.close(500);
      await Promise.all([fresh.close(), cached.close()]);
    }
  });

  it('gives a single bundle without reading its manifests; one read gives both the CSV and the objects', async () => {
    const { dir, cacheDir, fresh } = await cachedCatalog('read-once');
    await fresh.close();
    const cached = await loadRegistry(dir, { cacheDir });
    const [listed] = [...cached.queries.listBundles()];
    if (listed === undefined) throw new Error('no bundle');
    const reads = vi.spyOn(await fileHandlePrototype(), 'read');
    const bundle = cached.queries.getBundle(listed.packageName, listed.channelName, listed.csvName);
    expect(reads).not.toHaveBeenCalled();
    const read = await withManifestsRead(bundle);
    expect(reads).toHaveBeenCalledTimes(1);
    reads.mockRestore();
    expect(read.csvJson).not.toBe('');
    expect(read.object).toContain(read.csvJson);
    // Closed, the cache can no longer be read.
    await cached.close();
    await expect(withManifestsRead(bundle)).rejects.toThrow(/is closed/);
  });
});

/** The prototype of the file handles `node:fs/promises` opens, whose `read` the cache reads manifests with. */
async function fileHandlePrototype(): Promise<{ read: (...args: never[]) => unknown }> {
  const handle = await open(join(corpus, 'valid-simple', readdirSync(join(corpus, 'valid-simple'))[0] ?? ''));
  await handle.close();
  return Object.getPrototypeOf(handle) as { read: (...args: never[]) => unknown };
}

/** A bundle as the wire carries it: absent and empty fields alike. */
function comparable(b: ApiBundle): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(b)) {
    if (v === '' || v === undefined || v === null || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = v;
  }
  return out;
}
