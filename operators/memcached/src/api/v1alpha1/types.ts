import type { KubeObject } from '@opkit/controller-runtime';
import type { MemcachedSpec, MemcachedStatus } from './schema.js';

export type { MemcachedSpec, MemcachedStatus } from './schema.js';

/** A Memcached custom resource at v1alpha1 (the controller sees every object at v1beta1). */
export interface Memcached extends KubeObject {
  spec: MemcachedSpec;
  status?: MemcachedStatus;
}

/** The v1alpha1 schema's defaults. */
export const DEFAULTS = {
  containerPort: 11211,
  memoryLimitMB: 64,
  maxConnections: 1024,
  threads: 4,
  maxItemSize: '1m',
} as const;
