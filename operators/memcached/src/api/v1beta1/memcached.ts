import { type KubeObject, kind } from '@opkit/controller-runtime';
import { quantityCeil } from '@opkit/controller-runtime/controllerutil';
import { customResourceSchema, int32, quantity, schemaDefault } from '@opkit/controller-runtime/crd';
import { type SchemaProblem, schemaValidator } from '@opkit/controller-runtime/webhook';
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
export const MEMCACHED = kind<Memcached>(`${GROUP}/${VERSION}`, KIND);

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

export const memcachedSchema = customResourceSchema(
  memcachedSpecSchema,
  memcachedStatusSchema,
  'Memcached is the Schema for the memcacheds API.',
);

export type MemcachedSpec = Static<typeof memcachedSpecSchema>;
export type MemcachedStatus = Static<typeof memcachedStatusSchema>;
export { memcachedStatusSchema };

/** A Memcached custom resource at v1beta1, the version the controller works on. */
export interface Memcached extends KubeObject {
  spec: MemcachedSpec;
  status?: MemcachedStatus;
}

/**
 * Spec values the operator falls back to when a field is unset: the CRD's schema defaults them on every write,
 * and objects stored before a default existed are read with it too, but a fake client or an old object in a
 * cache may still lack one. Read from the schema, which states them once.
 */
export const DEFAULTS = {
  containerPort: schemaDefault(portSchema.properties.containerPort),
  memory: schemaDefault(memcachedSpecSchema.properties.memory),
  maxConnections: schemaDefault(memcachedSpecSchema.properties.maxConnections),
  /** memcached's own; no schema default can say it, as it hangs on the CPU limit ({@link defaultThreads}). */
  threads: 4,
  maxItemSize: schemaDefault(memcachedSpecSchema.properties.maxItemSize),
} as const;

/** One problem found by {@link validateMemcached}: the field path (e.g. `spec.replicas`) and the reason. */
export type ValidationProblem = SchemaProblem;

/**
 * Checks a Memcached against the same schema the CRD carries, before it reaches the API server (e.g. samples
 * in CI). Returns the problems, empty when valid.
 */
export const validateMemcached = schemaValidator<Memcached>(memcachedSchema);

export function isMemcached(obj: unknown): obj is Memcached {
  return validateMemcached(obj).length === 0;
}

const MI = 1024n * 1024n;

/**
 * Worker threads when the spec names none: one per CPU of the container's limit (rounded up), at most
 * memcached's own default of 4; 4 without a CPU limit. Conditional on another field, so no schema default
 * can say it: the defaulting webhook writes it into the object, and the controller uses the same rule for
 * objects that never passed the webhook.
 */
export function defaultThreads(spec: MemcachedSpec): number {
  const cpu = spec.resources?.limits?.cpu;
  const cores = cpu === undefined ? undefined : quantityCeil(cpu);
  if (cores === undefined) return DEFAULTS.threads;
  return Number(cores < 1n ? 1n : cores > BigInt(DEFAULTS.threads) ? BigInt(DEFAULTS.threads) : cores);
}

/** The item memory in whole megabytes as memcached's `-m` counts them (MiB), rounded up. */
export function memoryMegabytes(memory: string | number): number | undefined {
  const bytes = quantityCeil(memory);
  return bytes === undefined ? undefined : Number((bytes + MI - 1n) / MI);
}
