export { Backoff, isShortWatch } from '../internal/cache/backoff.js';
export { type InformerHandler, SharedInformer, stripManagedFields } from '../internal/cache/informer.js';
export {
  type ByObject,
  CacheSyncTimeoutError,
  cacheOptionsFor,
  cacheSelects,
  InformerCache,
  type KindCacheOptions,
  NamespaceNotCachedError,
  type ObjectCacheOptions,
} from '../internal/cache/informer-cache.js';
export { parseLabelSelector, selectorFromLabels } from '../internal/cache/label-selector.js';
export { deepFreeze, type IndexFunc, OWNER_UID_INDEX } from '../internal/cache/store.js';
export { watchNamespacesFromEnv } from '../internal/cache/watch-namespaces.js';
