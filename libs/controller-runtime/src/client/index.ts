// client-node's KubeConfig is accepted wherever a ClusterConnection is.
export type { KubeConfig } from '@kubernetes/client-node';
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
export {
  ApiError,
  ConnectionError,
  ignoreNotFound,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
} from './errors.js';
export { type ClusterConnection, Kubeconfig, KubeconfigError } from '../internal/transport/kubeconfig.js';
export type { ObjectClient } from './object-client.js';
export { NoKindMatchError, ResourceMapper, type ResourceMapping } from '../internal/transport/resource-mapper.js';
export { loadKubeConfig, Transport } from '../internal/transport/transport.js';
