import { int32 } from '@opkit/controller-runtime';
import { type Static, Type } from '@sinclair/typebox';
import { memcachedStatusSchema, unchangedSpecFields } from '../shared.js';

// The Memcached API at v1alpha1: still served (deprecated) and converted to and from v1beta1, the hub; the
// CRD's OpenAPI schema for this version, its validator and its TypeScript types are derived from it.

export const GROUP = 'cache.example.com';
export const VERSION = 'v1alpha1';
export const KIND = 'Memcached';
export const PLURAL = 'memcacheds';
export const MEMCACHED = { apiVersion: `${GROUP}/${VERSION}`, kind: KIND } as const;

export const memcachedSpecSchema = Type.Object(
  {
    size: int32({ minimum: 1, maximum: 3, description: 'Number of memcached servers (pods).' }),
    containerPort: Type.Optional(
      int32({ minimum: 1, maximum: 65535, default: 11211, description: 'Port memcached listens on (-p).' }),
    ),
    memoryLimitMB: Type.Optional(
      int32({ minimum: 16, maximum: 65536, default: 64, description: 'Item memory in megabytes (-m).' }),
    ),
    maxConnections: unchangedSpecFields.maxConnections,
    threads: Type.Optional(
      int32({ minimum: 1, maximum: 128, default: 4, description: 'Worker threads (-t).' }),
    ),
    maxItemSize: unchangedSpecFields.maxItemSize,
    extraArgs: unchangedSpecFields.extraArgs,
    image: unchangedSpecFields.image,
    resources: unchangedSpecFields.resources,
  },
  { description: 'MemcachedSpec is the desired state of a Memcached.' },
);

export const memcachedSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object' })),
    spec: memcachedSpecSchema,
    status: Type.Optional(memcachedStatusSchema),
  },
  { description: 'Memcached is the Schema for the memcacheds API.' },
);

export type MemcachedSpec = Static<typeof memcachedSpecSchema>;
export type MemcachedStatus = Static<typeof memcachedStatusSchema>;
export { memcachedStatusSchema };
