import { type Manager, type OperatorOptions, operatorManager } from '@opkit/controller-runtime';
import { setupControllers } from './controller/index.js';
import { MANAGED_BY } from './controller/resources.js';

export type RedisOperatorOptions = OperatorOptions;

/** Builds the operator's manager with the RedisCluster controller (see src/controller/index.ts). */
export function createRedisOperator(options: RedisOperatorOptions = {}): Manager {
  const manager = operatorManager(options, {
    name: 'redis-operator',
    leaderElectionId: 'redis-operator.cache.example.com',
    // Its own pods only: watching every namespace, it would otherwise cache every pod of the cluster.
    cache: { byObject: { 'v1/Pod': { labelSelector: `app.kubernetes.io/managed-by=${MANAGED_BY}` } } },
  });
  setupControllers(manager, options);
  return manager;
}
