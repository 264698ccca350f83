import { type Manager, type OperatorOptions, operatorManager } from '@opkit/controller-runtime';
import { operatorNamespace } from '@opkit/controller-runtime/manager';
import { prometheusRuleInstaller } from '@opkit/controller-runtime/monitoring';
import { redisCache } from './controller/cache.js';
import { setupControllers } from './controller/index.js';
import { redisPrometheusRule } from './monitoring/rules.js';

/** The operator's options; its own namespace also holds the operator's alert rules. */
export type RedisOperatorOptions = OperatorOptions;

/**
 * Builds the operator's manager with the RedisCluster controller (see src/controller/index.ts) and the
 * alert-rule installer.
 */
export function createRedisOperator(options: RedisOperatorOptions = {}): Manager {
  const manager = operatorManager(options, {
    name: 'redis-operator',
    leaderElectionId: 'redis-operator.cache.example.com',
    cache: { byObject: redisCache },
  });
  setupControllers(manager, options);
  const rule = redisPrometheusRule(operatorNamespace(options));
  manager.add(prometheusRuleInstaller(manager.apiClient, rule, manager.logger, 'redis-operator'));
  return manager;
}
