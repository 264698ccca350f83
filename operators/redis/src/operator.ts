import { type Manager, type OperatorOptions, operatorManager } from '@opkit/controller-runtime';
import { redisCache } from './controller/cache.js';
import { setupControllers } from './controller/index.js';

export type RedisOperatorOptions = OperatorOptions;

/** Builds the operator's manager with the RedisCluster controller (see src/controller/index.ts). */
export function createRedisOperator(options: RedisOperatorOptions = {}): Manager {
  const manager = operatorManager(options, {
    name: 'redis-operator',
    leaderElectionId: 'redis-operator.cache.example.com',
    cache: { byObject: redisCache },
  });
  setupControllers(manager, options);
  return manager;
}
