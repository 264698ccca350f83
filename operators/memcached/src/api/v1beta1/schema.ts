import { int32, quantity } from '@opkit/controller-runtime';
import { type Static, Type } from '@sinclair/typebox';
import { memcachedStatusSchema, unchangedSpecFields } from '../shared.js';

// The one definition of the Memcached API at v1beta1, the hub and storage version the controller works on:
// the CRD's OpenAPI schema, the client-side validator and the TypeScript types are all derived from it.
// Changes from v1alpha1: `size` is `replicas`, `containerPort` moved into a `port` object, the item memory is
// a quantity (`memory: 64Mi`, was `memoryLimitMB: 64`), and `threads` defaults from the CPU limit.

export const GROUP = 'cache.example.com';
export const VERSION = 'v1beta1';
export const KIND = 'Memcached';
export const PLURAL = 'memcacheds';
export const MEMCACHED = { apiVersion: `${GROUP}/${VERSION}`, kind: KIND } as const;

export const portSchema = Type.Object(
  {
    containerPort: Type.Optional(
      int32({ minimum: 1, maximum: 65535, default: 11211, description: 'Port memcached listens on (-p).' }),
    ),
  },
  { description: 'Where memcached listens.' },
);

export const memcachedSpecSchema = Type.Object(
  {
    replicas: int32({ minimum: 1, maximum: 3, description: 'Number of memcached servers (pods).' }),
    port: Type.Optional({ ...portSchema, default: {} }),
    memory: Type.Optional(
      Type.Unsafe<string | number>({
        ...quantity('Item memory of each server (-m), at least 16Mi; e.g. 64Mi or 1Gi.'),
        default: '64Mi',
      }),
    ),
    maxConnections: unchangedSpecFields.maxConnections,
    threads: Type.Optional(
      int32({
        minimum: 1,
        maximum: 128,
        description:
          'Worker threads (-t); default: the CPU limit rounded up, at most 4, or 4 without a CPU limit.',
      }),
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
