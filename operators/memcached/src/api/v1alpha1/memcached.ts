import { type KubeObject, kind } from '@opkit/controller-runtime';
import { customResourceSchema, int32, schemaDefault } from '@opkit/controller-runtime/crd';
import { type SchemaProblem, schemaValidator } from '@opkit/controller-runtime/webhook';
import { type Static, Type } from '@sinclair/typebox';
import { memcachedStatusSchema, unchangedSpecFields } from '../shared.js';

// The Memcached API at v1alpha1: still served (deprecated) and converted to and from v1beta1, the hub; the
// CRD's OpenAPI schema for this version, its validator and its TypeScript types are derived from it.

export const GROUP = 'cache.example.com';
export const VERSION = 'v1alpha1';
export const KIND = 'Memcached';
export const PLURAL = 'memcacheds';
export const MEMCACHED = kind<Memcached>(`${GROUP}/${VERSION}`, KIND);

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

export const memcachedSchema = customResourceSchema(
  memcachedSpecSchema,
  memcachedStatusSchema,
  'Memcached is the Schema for the memcacheds API.',
);

export type MemcachedSpec = Static<typeof memcachedSpecSchema>;
export type MemcachedStatus = Static<typeof memcachedStatusSchema>;
export { memcachedStatusSchema };

/** A Memcached custom resource at v1alpha1 (the controller sees every object at v1beta1). */
export interface Memcached extends KubeObject {
  spec: MemcachedSpec;
  status?: MemcachedStatus;
}

/** The v1alpha1 schema's defaults, read from it. */
export const DEFAULTS = {
  containerPort: schemaDefault(memcachedSpecSchema.properties.containerPort),
  memoryLimitMB: schemaDefault(memcachedSpecSchema.properties.memoryLimitMB),
  maxConnections: schemaDefault(memcachedSpecSchema.properties.maxConnections),
  threads: schemaDefault(memcachedSpecSchema.properties.threads),
  maxItemSize: schemaDefault(memcachedSpecSchema.properties.maxItemSize),
} as const;

/** One problem found by {@link validateMemcached}: the field path (e.g. `spec.size`) and the reason. */
export type ValidationProblem = SchemaProblem;

/**
 * Checks a Memcached against the same schema the CRD carries, before it reaches the API server (e.g. samples
 * in CI). Returns the problems, empty when valid.
 */
export const validateMemcached = schemaValidator<Memcached>(memcachedSchema);

export function isMemcached(obj: unknown): obj is Memcached {
  return validateMemcached(obj).length === 0;
}
