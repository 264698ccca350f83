import { resolve } from 'node:path';
import { RegistryError } from './errors.js';
import type { LoadedRegistry } from './loaded-registry.js';
import { RegistryQueries } from './queries.js';
import type { BuildRegistryModelOptions } from './registry-model.js';
import { catalogDigest, readServeCache, type ServeCacheKey, writeServeCache } from './serve-cache.js';

/** Options of {@link loadRegistry}: how bundles are served, and opm's serve cache flags. */
export interface LoadRegistryOptions extends BuildRegistryModelOptions {
  /** Read the model from this directory's serve cache when it matches the catalog; write it there otherwise. */
  readonly cacheDir?: string;
  /**
   * Refuse to start (`REGISTRY_CACHE_STALE`) unless the cache matches the catalog, instead of rebuilding it. opm's
   * default: on when a cache directory is given for serving.
   */
  readonly enforceCacheIntegrity?: boolean;
  /**
   * The command that rebuilds the cache, named in the `REGISTRY_CACHE_STALE` message (the CLI gives its own).
   * @default '--cache-only'
   */
  readonly rebuildCommand?: string;
}

/**
 * Loads a file-based catalog directory for serving: load, validate as `opm validate` does (opm's serve refuses
 * an invalid catalog too), and derive the registry model from the model validation built. With a cache directory, the model comes from its
 * serve cache when the cache was made from these very files and options; otherwise it is built and the cache
 * (re)written, or, with `enforceCacheIntegrity`, refused.
 *
 * @throws CatalogLoadError when a file cannot be read or decoded
 * @throws RegistryError `REGISTRY_CATALOG_INVALID` with opm's validation message, `REGISTRY_CACHE_STALE`, or a
 *   conversion error
 */
export async function loadRegistry(dir: string, options: LoadRegistryOptions = {}): Promise<LoadedRegistry> {
  const { cacheDir, enforceCacheIntegrity, rebuildCommand, ...build } = options;
  if (cacheDir === undefined) return await loadFromCatalog(dir, build);
  const key: ServeCacheKey = {
    catalogDigest: await catalogDigest(dir),
    inlineBundles: build.inlineBundles ?? false,
    // The bundles directory matters only to inline serving; relative to where the server runs.
    ...(build.inlineBundles && build.bundlesDir !== undefined
      ? { bundlesDir: resolve(build.bundlesDir) }
      : {}),
  };
  const cached = await readServeCache(cacheDir, key);
  if ('model' in cached) {
    const { model, packages, bundles, close } = cached;
    return { model, queries: new RegistryQueries(model), packages, bundles, close, cache: { used: true } };
  }
  if (enforceCacheIntegrity) {
    throw new RegistryError(
      'REGISTRY_CACHE_STALE',
      `serve cache ${cacheDir} cannot be used for ${dir}: ${cached.stale}; rebuild it with ${rebuildCommand ?? '--cache-only'}, or serve without --cache-enforce-integrity`,
    );
  }
  const loaded = await loadFromCatalog(dir, build);
  try {
    await writeServeCache(cacheDir, key, loaded.model);
  } catch (err) {
    const writeError = (err as Error).message;
    return { ...loaded, cache: { used: false, why: cached.stale, written: false, writeError } };
  }
  return { ...loaded, cache: { used: false, why: cached.stale, written: true } };
}

/**
 * The catalog loaded, validated and converted: its code, most of the library, loads only when no serve cache
 * serves instead, as a server keeps every module it loaded for as long as it runs.
 */
async function loadFromCatalog(dir: string, options: BuildRegistryModelOptions): Promise<LoadedRegistry> {
  const { loadRegistryFromCatalog } = await import('./load-from-catalog.js');
  return await loadRegistryFromCatalog(dir, options);
}

export type { LoadedRegistry } from './loaded-registry.js';
