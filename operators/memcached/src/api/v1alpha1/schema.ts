import { conditionsSchema, int32, int64, resourceRequirements } from '@opkit/controller-runtime';
import { type Static, Type } from '@sinclair/typebox';

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
    maxConnections: Type.Optional(
      int32({
        minimum: 1,
        maximum: 65536,
        default: 1024,
        description: 'Maximum simultaneous connections (-c).',
      }),
    ),
    threads: Type.Optional(
      int32({ minimum: 1, maximum: 128, default: 4, description: 'Worker threads (-t).' }),
    ),
    maxItemSize: Type.Optional(
      Type.String({
        pattern: '^[0-9]+(k|m)$',
        default: '1m',
        description: 'Largest item size, e.g. 512k or 1m (-I).',
      }),
    ),
    extraArgs: Type.Optional(
      Type.Array(Type.String({ maxLength: 256 }), {
        maxItems: 16,
        description: 'More memcached arguments, appended after the ones the operator sets.',
      }),
    ),
    image: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Memcached image for this instance; default: the operator’s RELATED_IMAGE_MEMCACHED.',
      }),
    ),
    resources: Type.Optional(resourceRequirements('Compute resources of each memcached container.')),
  },
  { description: 'MemcachedSpec is the desired state of a Memcached.' },
);

export const memcachedStatusSchema = Type.Object(
  {
    conditions: Type.Optional(
      conditionsSchema('Available, Progressing and Degraded, with Kubernetes condition semantics.'),
    ),
    nodes: Type.Optional(Type.Array(Type.String(), { description: 'Names of the memcached pods.' })),
    servers: Type.Optional(
      Type.Array(Type.String(), {
        description: 'host:port of every ready server, for clients to hash over.',
      }),
    ),
    readyReplicas: Type.Optional(int32({ minimum: 0 })),
    observedGeneration: Type.Optional(int64({ minimum: 0 })),
  },
  { description: 'MemcachedStatus is the observed state of a Memcached.' },
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
