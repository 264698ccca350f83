import { type KubeObject, kind } from '@opkit/controller-runtime';
import {
  conditionsSchema,
  customResourceSchema,
  int32,
  int64,
  quantity,
  resourceRequirements,
} from '@opkit/controller-runtime/crd';
import { type SchemaProblem, schemaValidator } from '@opkit/controller-runtime/webhook';
import { type Static, Type } from '@sinclair/typebox';

// The one definition of the RedisCluster API: the CRD's OpenAPI schema (with its CEL rules), the client-side
// validator and the TypeScript types are all derived from it.

export const GROUP = 'cache.example.com';
export const VERSION = 'v1';
export const KIND = 'RedisCluster';
export const PLURAL = 'redisclusters';
export const REDIS_CLUSTER = kind<RedisCluster>(`${GROUP}/${VERSION}`, KIND);

export const MIN_PRIMARIES = 3;
export const DEFAULT_REPLICAS_PER_PRIMARY = 1;

/**
 * redis.conf settings the operator sets itself: `spec.config` may not name them. Lower case, as redis.conf
 * keys are case-insensitive and the schema only accepts lower-case keys.
 */
export const OPERATOR_OWNED_CONFIG = [
  'port',
  'bind',
  'cluster-enabled',
  'cluster-config-file',
  'cluster-announce-ip',
  'cluster-announce-port',
  'cluster-announce-bus-port',
  'cluster-announce-tls-port',
  'cluster-port',
  'dir',
  'dbfilename',
  'appendonly',
  'appenddirname',
  'requirepass',
  'masterauth',
  'masteruser',
  'aclfile',
  'user',
  'daemonize',
  'protected-mode',
  'include',
  'rename-command',
  'replicaof',
  'slaveof',
  'unixsocket',
  'pidfile',
  'logfile',
  'tls-port',
  'supervised',
] as const;

const configSchema = Type.Unsafe<Record<string, string>>({
  type: 'object',
  maxProperties: 64,
  additionalProperties: {
    type: 'string',
    maxLength: 1024,
    'x-kubernetes-validations': [
      {
        // A line break would end the directive and start another one of the user's choosing. The rule sits
        // on the value, so the refusal names the setting.
        rule: "!self.contains('\\n') && !self.contains('\\r')",
        message: 'must be one line: a line break would start another redis.conf directive',
      },
    ],
  },
  description:
    'Extra redis.conf settings (key → value), appended to the configuration the operator writes. Keys the ' +
    'operator owns (port, bind, cluster-*, dir, appendonly, requirepass, masterauth, …) are rejected.',
  'x-kubernetes-validations': [
    {
      rule: "self.all(k, k.matches('^[a-z][a-z0-9-]*$'))",
      message: 'spec.config keys must be lower-case redis.conf directives',
    },
    ...OPERATOR_OWNED_CONFIG.map((key) => ({
      rule: `!('${key}' in self)`,
      message: `spec.config.${key} is managed by the operator and cannot be set`,
    })),
  ],
});

export const redisClusterSpecSchema = Type.Object(
  {
    size: int32({
      minimum: 3,
      maximum: 120,
      description:
        'Number of Redis nodes (pods). Primaries are ceil(size / (replicasPerPrimary + 1)), at least 3; nodes left over follow the first primaries.',
    }),
    replicasPerPrimary: Type.Optional(
      int32({
        minimum: 0,
        maximum: 5,
        default: DEFAULT_REPLICAS_PER_PRIMARY,
        description:
          'Most replicas a primary keeps; a size that does not divide evenly gives some primaries fewer.',
      }),
    ),
    image: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Redis image for this cluster; default: the operator’s RELATED_IMAGE_REDIS.',
      }),
    ),
    resources: Type.Optional(resourceRequirements('Compute resources of each Redis container.')),
    storage: Type.Optional(
      Type.Object(
        {
          size: quantity('Size of each node’s volume, e.g. 1Gi.'),
          storageClassName: Type.Optional(
            Type.String({ minLength: 1, description: 'StorageClass of the claims; default: the cluster’s.' }),
          ),
        },
        {
          description:
            'A PersistentVolumeClaim per node for /data (AOF and nodes.conf). Without it, data lives in an emptyDir.',
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'spec.storage is immutable' }],
        },
      ),
    ),
    config: Type.Optional(configSchema),
    auth: Type.Optional(
      Type.Object(
        {
          secretName: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 253,
              description:
                'Secret in the cluster’s namespace whose key `password` is the Redis password; default: a generated Secret <name>-auth.',
            }),
          ),
        },
        { description: 'Authentication of clients and of replicas to their primaries.' },
      ),
    ),
  },
  {
    description: 'RedisClusterSpec is the desired state of a RedisCluster.',
    'x-kubernetes-validations': [
      {
        rule: 'has(self.storage) == has(oldSelf.storage)',
        message: 'spec.storage cannot be added or removed after creation',
        fieldPath: '.storage',
      },
    ],
  },
);

export const nodeStatusSchema = Type.Object({
  pod: Type.String({ description: 'Pod name.' }),
  ip: Type.Optional(Type.String()),
  nodeId: Type.Optional(Type.String({ description: 'Redis Cluster node ID.' })),
  role: Type.Unsafe<'primary' | 'replica' | 'unknown'>({
    type: 'string',
    enum: ['primary', 'replica', 'unknown'],
  }),
  primaryId: Type.Optional(Type.String({ description: 'Node ID of the primary this replica follows.' })),
  slots: Type.Optional(Type.String({ description: 'Hash slot ranges this primary serves, e.g. 0-5460.' })),
  slotCount: Type.Optional(int32({ minimum: 0 })),
});

export const redisClusterStatusSchema = Type.Object(
  {
    conditions: Type.Optional(
      conditionsSchema('Available, Progressing and Degraded, with Kubernetes condition semantics.'),
    ),
    nodes: Type.Optional(Type.Array(Type.String(), { description: 'Names of the Redis pods.' })),
    members: Type.Optional(
      Type.Array(nodeStatusSchema, { description: 'Role, primary and slots of every node, by pod.' }),
    ),
    clusterState: Type.Optional(
      Type.Unsafe<'ok' | 'fail' | 'unknown'>({
        type: 'string',
        enum: ['ok', 'fail', 'unknown'],
        description: 'cluster_state from CLUSTER INFO.',
      }),
    ),
    primaries: Type.Optional(int32({ minimum: 0 })),
    readyNodes: Type.Optional(int32({ minimum: 0 })),
    slotsAssigned: Type.Optional(int32({ minimum: 0 })),
    secretName: Type.Optional(Type.String({ description: 'Secret holding the password (key `password`).' })),
    observedGeneration: Type.Optional(int64({ minimum: 0 })),
  },
  { description: 'RedisClusterStatus is the observed state of a RedisCluster.' },
);

export const redisClusterSchema = customResourceSchema(
  redisClusterSpecSchema,
  redisClusterStatusSchema,
  'RedisCluster is the Schema for the redisclusters API: a sharded Redis Cluster.',
);

export type RedisClusterSpec = Static<typeof redisClusterSpecSchema>;
export type RedisClusterStatus = Static<typeof redisClusterStatusSchema>;
export type RedisNodeStatus = Static<typeof nodeStatusSchema>;

/** A RedisCluster custom resource. */
export interface RedisCluster extends KubeObject {
  spec: RedisClusterSpec;
  status?: RedisClusterStatus;
}

/** One problem found by {@link validateRedisCluster}: the field path (e.g. `spec.size`) and the reason. */
export type ValidationProblem = SchemaProblem;

/** The CRD's CEL rules (`x-kubernetes-validations`) that ajv does not evaluate, with the same messages. */
function celProblems(obj: RedisCluster): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const spec = obj.spec;
  const keys = Object.keys(spec.config ?? {});
  if (!keys.every((k) => /^[a-z][a-z0-9-]*$/.test(k)))
    problems.push({
      field: 'spec.config',
      message: 'spec.config keys must be lower-case redis.conf directives',
    });
  for (const [key, value] of Object.entries(spec.config ?? {})) {
    if (value.includes('\n') || value.includes('\r'))
      problems.push({
        field: `spec.config[${key}]`,
        message: 'must be one line: a line break would start another redis.conf directive',
      });
  }
  for (const key of OPERATOR_OWNED_CONFIG) {
    if (keys.includes(key))
      problems.push({
        field: 'spec.config',
        message: `spec.config.${key} is managed by the operator and cannot be set`,
      });
  }
  return problems;
}

/**
 * Checks a RedisCluster against the same schema and rules the CRD carries, before it reaches the API server
 * (e.g. samples in CI). Returns the problems, empty when valid.
 */
export const validateRedisCluster = schemaValidator<RedisCluster>(redisClusterSchema, celProblems);

export function isRedisCluster(obj: unknown): obj is RedisCluster {
  return validateRedisCluster(obj).length === 0;
}
