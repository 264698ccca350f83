import { createLogger, type Manager } from '@opkit/controller-runtime';
import { RuntimeMetrics } from '@opkit/controller-runtime/metrics';
import { testKubeConfig } from '@opkit/test-cluster/vitest';
import { afterEach, beforeAll, beforeEach } from 'vitest';
import { type RedisCluster, redisClusterCrd } from '../../src/index.js';
import { createRedisOperator } from '../../src/operator.js';

export const REDIS_IMAGE = 'docker.io/library/redis:7.0';

/** Installs the RedisCluster CRD (idempotent) and waits until the API serves it. */
export async function installRedisClusterCrd(): Promise<void> {
  const installer = createRedisOperator({ kubeConfig: testKubeConfig(), namespaces: ['default'] });
  await installer.apiReader.apply(redisClusterCrd, { fieldManager: 'redis-test' });
  for (let i = 0; i < 100; i++) {
    try {
      await installer.apiReader.list(
        { apiVersion: 'cache.example.com/v1', kind: 'RedisCluster' },
        { limit: 1 },
      );
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await installer.transport.close();
}

/** Runs the operator in this process for each test, watching only the test's namespace; keeps its log lines. */
export function useOperator(namespace: () => string): { manager: () => Manager; logs: string[] } {
  let manager: Manager | undefined;
  let stop: AbortController | undefined;
  let running: Promise<void> | undefined;
  const logs: string[] = [];
  beforeAll(installRedisClusterCrd);
  beforeEach(async () => {
    logs.length = 0;
    manager = createRedisOperator({
      kubeConfig: testKubeConfig(),
      namespaces: [namespace()],
      namespace: namespace(),
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '127.0.0.1:0',
      env: { RELATED_IMAGE_REDIS: REDIS_IMAGE },
      // Everything the operator logs, at debug level, is kept so tests can check what it says.
      logger: createLogger({
        level: 'debug',
        sink: (line) => {
          logs.push(line);
          if (process.env.OPKIT_TEST_VERBOSE) process.stderr.write(`${line}\n`);
        },
      }),
      managerOptions: { metrics: new RuntimeMetrics() },
    });
    stop = new AbortController();
    running = manager.start(stop.signal);
    await manager.elected;
  });
  afterEach(async () => {
    stop?.abort();
    await running;
  });
  return { manager: () => manager!, logs };
}

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
