// @opkit/controller-runtime/cache: the manager's shared informer cache as operator code sees it — a read-only
// `Cache` (reads, indexes, informers whose stores are `StoreReader`s) — and how to scope it per kind
// (`byObject`). Its machinery (informers, reflectors, stores) is internal; `newCache` builds one outside a
// manager.
export { type Informer, type InformerHandler, stripManagedFields } from '../internal/cache/informer.js';
export {
  type ByObject,
  type Cache,
  CacheSyncTimeoutError,
  cacheOptionsFor,
  cacheSelects,
  type InformerCacheOptions,
  InformerStartError,
  type KindCacheOptions,
  NamespaceNotCachedError,
  newCache,
  type ObjectCacheOptions,
  type StandaloneCache,
} from '../internal/cache/informer-cache.js';
export { parseLabelSelector, selectorFromLabels } from '../internal/cache/label-selector.js';
export {
  type IndexFunc,
  OWNER_UID_INDEX,
  type StoreListOptions,
  type StoreReader,
} from '../internal/cache/store.js';
export { watchNamespacesFromEnv } from '../internal/cache/watch-namespaces.js';
export type { TransientFailure } from '../internal/retry/transient-retry.js';
