import type { RegistryQueries } from './queries.js';
import type { RegistryModel } from './registry-model.js';

/** A catalog ready to serve. */
export interface LoadedRegistry {
  readonly model: RegistryModel;
  readonly queries: RegistryQueries;
  readonly packages: number;
  readonly bundles: number;
  /**
   * Releases what serving holds open: the serve cache file a model read from it reads manifests from. Call it
   * once the server has stopped; a bundle's manifests cannot be read after.
   */
  close(): Promise<void>;
  /**
   * With a cache directory: whether the cache was used; if not, why not, and whether a new one was written (a
   * cache that cannot be written, on a read-only file system say, does not stop the server).
   */
  readonly cache?:
    | { readonly used: true }
    | { readonly used: false; readonly why: string; readonly written: true }
    | { readonly used: false; readonly why: string; readonly written: false; readonly writeError: string };
}
