import { type Manager, type OperatorOptions, operatorManager } from '@opkit/controller-runtime';
import { setupRedisClusterController } from './controller/redis-cluster-controller.js';

export type RedisOperatorOptions = OperatorOptions;

/** Builds the operator's manager: the RedisCluster controller. */
export function createRedisOperator(options: RedisOperatorOptions = {}): Manager {
  const manager = operatorManager(options, {
    name: 'redis-operator',
    leaderElectionId: 'redis-operator.cache.example.com',
  });
  setupRedisClusterController(manager, {
    env: options.env ?? process.env,
    logger: manager.logger,
    maxConcurrentReconciles: options.maxConcurrentReconciles,
  });
  return manager;
}
