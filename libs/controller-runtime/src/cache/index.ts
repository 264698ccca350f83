export { Backoff, isShortWatch } from './backoff.js';
export { type InformerHandler, SharedInformer, stripManagedFields } from './informer.js';
export {
  type ByObject,
  CacheSyncTimeoutError,
  cacheOptionsFor,
  cacheSelects,
  InformerCache,
  type KindCacheOptions,
  NamespaceNotCachedError,
  type ObjectCacheOptions,
} from './informer-cache.js';
export { parseLabelSelector, selectorFromLabels } from './label-selector.js';
export { deepFreeze, type IndexFunc, OWNER_UID_INDEX } from './store.js';
export { watchNamespacesFromEnv } from './watch-namespaces.js';
