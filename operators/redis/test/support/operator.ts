import { createLogger, type Manager } from '@opkit/controller-runtime';
import { RuntimeMetrics } from '@opkit/controller-runtime/metrics';
import { type OperatorOptions, testKubeConfig } from '@opkit/test-cluster/vitest';
import { type RedisCluster, redisClusterCrd } from '../../src/index.js';
import { createRedisOperator } from '../../src/operator.js';

export const REDIS_IMAGE = 'docker.io/library/redis:7.0';

/**
 * The Redis operator for the kit's `useOperator`: each test's manager watches only the test's namespace, and
 * everything it logs, at debug level, is kept (`logs`) so tests can check what it says.
 */
export const redisOperator = {
  crds: [redisClusterCrd],
  create: (namespace, { logSink }) =>
    createRedisOperator({
      kubeConfig: testKubeConfig(),
      namespaces: [namespace],
      namespace,
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '127.0.0.1:0',
      env: { RELATED_IMAGE_REDIS: REDIS_IMAGE },
      logger: createLogger({ level: 'debug', sink: logSink }),
      managerOptions: { metrics: new RuntimeMetrics() },
    }),
} satisfies Omit<OperatorOptions<Manager>, 'namespace'>;

export function redisCluster(
  name: string,
  namespace: string,
  spec: Partial<RedisCluster['spec']> = {},
): RedisCluster {
  return {
    apiVersion: 'cache.example.com/v1',
    kind: 'RedisCluster',
    metadata: { name, namespace },
    spec: { size: 6, ...spec },
  };
}
