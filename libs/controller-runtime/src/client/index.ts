// @opkit/controller-runtime/client: the clients and what they take. The manager's `client` (a `CachedClient`:
// cached reads, direct writes) and `apiClient` (a `DirectClient`) both implement `ObjectClient`; `directClient`
// builds a `DirectClient` of one's own from a kubeconfig. Also the API errors, the kubeconfig loader and the
// group/version/kind helpers of object types.

// client-node's KubeConfig is accepted wherever a ClusterConnection is.
export type { KubeConfig } from '@kubernetes/client-node';
export {
  ApiError,
  ConnectionError,
  ignoreNotFound,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  isTransient,
} from '../errors/index.js';
export {
  type ClusterConnection,
  KubeconfigError,
  type LoadedKubeconfig,
  loadKubeConfig,
} from '../internal/transport/kubeconfig.js';
export { NoKindMatchError, type ResourceMapping } from '../internal/transport/resource-mapper.js';
export {
  apiVersionOf,
  type GroupVersionKind,
  groupOf,
  gvkOf,
  type OwnerReference,
  objectKey,
} from '../object.js';
export { CachedClient } from './cached-client.js';
export {
  type DirectClient,
  type DirectClientOptions,
  directClient,
  retryOnConflict,
} from './direct-client.js';
export type { ObjectClient } from './object-client.js';
export type {
  ApplyOptions,
  DeleteOptions,
  ListOptions,
  ObjectList,
  ObjectRef,
  PatchOptions,
  PatchType,
  Reader,
  WriteOptions,
} from './options.js';
