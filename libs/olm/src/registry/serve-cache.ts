import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { CatalogLoadError } from '../catalog/declcfg/errors.js';
import { listCatalogFiles, readCatalogFile } from '../catalog/declcfg/load.js';
import type { RegistryChannel, RegistryEntry, RegistryModel, RegistryPackage } from './registry-model.js';

/**
 * The serve cache: a registry model with every bundle already converted, written once (at image build time, as
 * `opm serve --cache-only` is) and read at start-up instead of loading, validating and converting the catalog.
 * It is keyed by a digest of the catalog's files and of the serving options, so a cache never serves a catalog
 * other than the one it was made from.
 */
export const SERVE_CACHE_FILE = 'opkit-serve-cache.v8';

/** Written first in the file; a cache of another format is stale, never misread. */
const FORMAT = 'opkit-serve-cache/2';

/** What the cached model was made from: the catalog's files and how bundles are served. */
export interface ServeCacheKey {
  /** sha256 over the catalog's file names and contents, in load order. */
  readonly catalogDigest: string;
  readonly inlineBundles: boolean;
  readonly bundlesDir?: string;
}

interface CacheFile {
  readonly format: string;
  readonly key: ServeCacheKey;
  readonly packages: RegistryPackage[];
}

/**
 * An entry as the cache keeps it: a bundle's CSV JSON is one of its objects, and the serializer, which writes a
 * shared object once but every string each time it meets it, would write the CSV again for every channel that
 * lists the bundle, and reading would make each a string of its own. So the CSV is kept as its index among the
 * objects, and restored from them on reading.
 */
interface CachedEntry extends RegistryEntry {
  readonly csvJsonObject?: number;
}

function toCachedEntry(e: RegistryEntry): CachedEntry {
  // Spreading an entry reads its `bundle` getter: the copy holds the converted bundle as plain data.
  const entry: RegistryEntry = { ...e };
  const { csvJson, object } = entry.bundle;
  const index = csvJson === '' ? -1 : object.indexOf(csvJson);
  if (index < 0) return entry;
  return { ...entry, bundle: { ...entry.bundle, csvJson: '' }, csvJsonObject: index };
}

function fromCachedEntry(e: CachedEntry): RegistryEntry {
  const { csvJsonObject, ...entry } = e;
  if (csvJsonObject === undefined) return entry;
  return { ...entry, bundle: { ...entry.bundle, csvJson: entry.bundle.object[csvJsonObject] ?? '' } };
}

/**
 * The digest of a catalog directory: every file opm would load (`.indexignore` applied), names and contents.
 *
 * @throws CatalogLoadError naming the file that cannot be read, as the loader does
 */
export async function catalogDigest(dir: string): Promise<string> {
  const hash = createHash('sha256');
  let files: string[];
  try {
    files = await listCatalogFiles(dir);
  } catch (err) {
    throw new CatalogLoadError(dir, [{ file: '', message: (err as Error).message }]);
  }
  for (const file of files) {
    // Read as the loader reads it: within the directory, regular files only, within the size limit.
    let content: Buffer;
    try {
      content = readCatalogFile(dir, file);
    } catch (err) {
      throw new CatalogLoadError(dir, [{ file, message: (err as Error).message }]);
    }
    // Length-prefixed, so no two different catalogs hash the same byte stream.
    hash.update(`${Buffer.byteLength(file)}:${file}\n${content.length}\n`);
    hash.update(content);
  }
  return hash.digest('hex');
}

const sameKey = (a: ServeCacheKey, b: ServeCacheKey): boolean =>
  a.catalogDigest === b.catalogDigest && a.inlineBundles === b.inlineBundles && a.bundlesDir === b.bundlesDir;

/**
 * Writes the model to `cacheDir` with every bundle converted (the conversion the server otherwise does on first
 * use). The file is replaced atomically.
 */
export async function writeServeCache(
  cacheDir: string,
  key: ServeCacheKey,
  model: RegistryModel,
): Promise<void> {
  const packages = [...model.packages.values()].map(
    (pkg): RegistryPackage => ({
      ...pkg,
      channels: new Map(
        [...pkg.channels].map(([name, ch]): [string, RegistryChannel] => [
          name,
          {
            ...ch,
            entries: new Map(
              [...ch.entries].map(([bundle, e]): [string, RegistryEntry] => [bundle, toCachedEntry(e)]),
            ),
          },
        ]),
      ),
    }),
  );
  const file: CacheFile = { format: FORMAT, key, packages };
  await mkdir(cacheDir, { recursive: true });
  const path = join(cacheDir, SERVE_CACHE_FILE);
  const partial = `${path}.${process.pid}.partial`;
  try {
    await writeFile(partial, serialize(file));
    await rename(partial, path);
  } finally {
    await rm(partial, { force: true });
  }
}

/** The outcome of {@link readServeCache}: the model, or why the cache cannot be used. */
export type ServeCacheRead =
  | { readonly model: RegistryModel; readonly packages: number; readonly bundles: number }
  | { readonly stale: string };

/** Reads the cache in `cacheDir` when it was made from exactly `key`. */
export async function readServeCache(cacheDir: string, key: ServeCacheKey): Promise<ServeCacheRead> {
  let bytes: Buffer;
  try {
    bytes = await readFile(join(cacheDir, SERVE_CACHE_FILE));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { stale: code === 'ENOENT' ? 'no cache yet' : `cannot read it: ${(err as Error).message}` };
  }
  let file: Partial<CacheFile>;
  try {
    file = deserialize(bytes) as Partial<CacheFile>;
  } catch {
    return { stale: 'it is not a serve cache (it does not decode)' };
  }
  if (file?.format !== FORMAT || file.key === undefined || !Array.isArray(file.packages)) {
    return { stale: `it is not a ${FORMAT} file` };
  }
  if (!sameKey(file.key, key)) {
    return {
      stale:
        file.key.catalogDigest !== key.catalogDigest
          ? 'the catalog changed since it was written'
          : 'it was written for other serving options (--inline-bundles, --bundles-dir)',
    };
  }
  const bundles = new Set<string>();
  for (const pkg of file.packages) {
    for (const ch of pkg.channels.values()) {
      const entries = ch.entries as Map<string, RegistryEntry>;
      for (const [name, e] of entries) {
        entries.set(name, fromCachedEntry(e));
        bundles.add(`${pkg.name}/${name}`);
      }
    }
  }
  return {
    model: { packages: new Map(file.packages.map((p) => [p.name, p])) },
    packages: file.packages.length,
    bundles: bundles.size,
  };
}
