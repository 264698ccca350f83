import type { KubeObject } from '@opkit/controller-runtime';
import type { MemcachedSpec, MemcachedStatus } from './schema.js';

export type { MemcachedSpec, MemcachedStatus } from './schema.js';

/** A Memcached custom resource at v1beta1, the version the controller works on. */
export interface Memcached extends KubeObject {
  spec: MemcachedSpec;
  status?: MemcachedStatus;
}

/**
 * Spec values the operator falls back to when a field is unset: the CRD's schema defaults them on every write,
 * and objects stored before a default existed are read with it too, but a fake client or an old object in a
 * cache may still lack one.
 */
export const DEFAULTS = {
  containerPort: 11211,
  memory: '64Mi',
  maxConnections: 1024,
  threads: 4,
  maxItemSize: '1m',
} as const;
