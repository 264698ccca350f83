import { describe, expect, it } from 'vitest';
import { redisClusterCrd } from '../redis-cluster-crd.js';
import { OPERATOR_OWNED_CONFIG, validateRedisCluster } from './redis-cluster.js';

const valid = {
  apiVersion: 'cache.example.com/v1',
  kind: 'RedisCluster',
  metadata: { name: 'r' },
  spec: { size: 6 },
};

describe('validateRedisCluster (the CRD schema and its CEL rules, client-side)', () => {
  it('accepts a minimal and a full spec', () => {
    expect(validateRedisCluster(valid)).toEqual([]);
    expect(
      validateRedisCluster({
        ...valid,
        spec: {
          size: 9,
          replicasPerPrimary: 2,
          image: 'registry.example/redis:7.2',
          resources: { limits: { memory: '1Gi', cpu: 1 } },
          storage: { size: '1Gi', storageClassName: 'standard' },
          config: { 'maxmemory-policy': 'allkeys-lru', 'cluster-node-timeout': '3000' },
          auth: { secretName: 'redis-password' },
        },
      }),
    ).toEqual([]);
  });

  it('accepts a size that does not divide evenly: the spare nodes follow the first primaries', () => {
    for (const size of [3, 4, 5, 7]) expect(validateRedisCluster({ ...valid, spec: { size } })).toEqual([]);
    expect(validateRedisCluster({ ...valid, spec: { size: 4, replicasPerPrimary: 2 } })).toEqual([]);
  });

  it('names the field of every problem, with the messages the API server gives', () => {
    expect(validateRedisCluster({ ...valid, spec: { size: 6, config: { dir: '/tmp', Port: '1' } } })).toEqual(
      [
        { field: 'spec.config', message: 'spec.config keys must be lower-case redis.conf directives' },
        { field: 'spec.config', message: 'spec.config.dir is managed by the operator and cannot be set' },
      ],
    );
    expect(validateRedisCluster({ ...valid, spec: { size: 6, config: { save: '900 1\ndir /' } } })).toEqual([
      {
        field: 'spec.config[save]',
        message: 'must be one line: a line break would start another redis.conf directive',
      },
    ]);
    expect(validateRedisCluster({ ...valid, spec: { size: 2 } })).toEqual([
      { field: 'spec.size', message: 'must be >= 3' },
    ]);
  });

  it('is the schema the CRD carries: CEL rules for keys, one-line values and each operator-owned key', () => {
    const spec = (
      redisClusterCrd.spec.versions[0]!.schema.openAPIV3Schema as {
        properties: {
          spec: {
            properties: {
              config: {
                'x-kubernetes-validations': unknown[];
                additionalProperties: { 'x-kubernetes-validations': { rule: string }[] };
              };
            };
          };
        };
      }
    ).properties.spec;
    expect(spec.properties.config['x-kubernetes-validations']).toHaveLength(OPERATOR_OWNED_CONFIG.length + 1);
    // The one-line rule sits on each value, so the API server names the setting: spec.config[save].
    expect(spec.properties.config.additionalProperties['x-kubernetes-validations'][0]?.rule).toContain(
      "'\\n'",
    );
  });
});
