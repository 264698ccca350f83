// @opkit/controller-runtime/client: the clients and what they take. The manager's `client` (a `CachedClient`:
// cached reads, direct writes) and `apiClient` (a `DirectClient`) both implement `ObjectClient`; a
// `DirectClient` of one's own is built on a `Transport` and a `ResourceMapper`. Also the API errors, the
// kubeconfig loader and the group/version/kind helpers of object types.

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
} from '../errors/index.js';
export { type ClusterConnection, Kubeconfig, KubeconfigError } from '../internal/transport/kubeconfig.js';
export {
  NoKindMatchError,
  ResourceMapper,
  type ResourceMapping,
} from '../internal/transport/resource-mapper.js';
export { loadKubeConfig, Transport } from '../internal/transport/transport.js';
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
  type ApplyOptions,
  type DeleteOptions,
  DirectClient,
  type ListOptions,
  type ObjectList,
  type ObjectRef,
  type PatchOptions,
  type PatchType,
  type Reader,
  retryOnConflict,
  type TypeRef,
  type WriteOptions,
} from './client.js';
export type { ObjectClient } from './object-client.js';
