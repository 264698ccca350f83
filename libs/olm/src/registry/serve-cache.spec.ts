import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CatalogLoadError } from '../catalog/declcfg/errors.js';
import { RegistryError } from './errors.js';
import { loadRegistry } from './load-registry.js';
import type { RegistryQueries } from './queries.js';
import { SERVE_CACHE_FILE } from './serve-cache.js';

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
    }
  });

  it('is not used for a changed catalog, other options or a damaged file; enforced, it refuses in one line', async () => {
    const dir = join(scratch, 'changing');
    cpSync(join(corpus, 'valid-bundle-object-without-image'), dir, { recursive: true });
    const cacheDir = join(scratch, 'changing-cache');
    expect((await loadRegistry(dir, { cacheDir })).cache).toMatchObject({ why: 'no cache yet' });
    expect((await loadRegistry(dir, { cacheDir })).cache).toEqual({ used: true });

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
    expect((await loadRegistry(dir, { cacheDir })).cache).toMatchObject({ used: false });
    expect((await loadRegistry(dir, { cacheDir })).cache).toEqual({ used: true });
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
