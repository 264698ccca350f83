import type { KubeObject } from '@opkit/controller-runtime';
import type { MemcachedSpec, MemcachedStatus } from './schema.js';

export type { MemcachedSpec, MemcachedStatus } from './schema.js';

/** A Memcached custom resource. */
export interface Memcached extends KubeObject {
  spec: MemcachedSpec;
  status?: MemcachedStatus;
}

/** Spec values the operator falls back to when a field is unset (the CRD defaults them too). */
export const DEFAULTS = {
  containerPort: 11211,
  memoryLimitMB: 64,
  maxConnections: 1024,
  threads: 4,
  maxItemSize: '1m',
} as const;
