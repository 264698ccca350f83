import { conditionsSchema, int32, int64, resourceRequirements } from '@opkit/controller-runtime/crd';
import { Type } from '@sinclair/typebox';

// What v1alpha1 and v1beta1 have alike: the spec fields that did not change between them, and the status.

export const unchangedSpecFields = {
  maxConnections: Type.Optional(
    int32({
      minimum: 1,
      maximum: 65536,
      default: 1024,
      description: 'Maximum simultaneous connections (-c).',
    }),
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
};

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
