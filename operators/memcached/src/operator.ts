import {
  type Manager,
  type OperatorOptions,
  operatorManager,
  operatorNamespace,
} from '@opkit/controller-runtime';
import { setupMemcachedController } from './controller/memcached-controller.js';
import { prometheusRuleInstaller } from './monitoring/prometheus-rule.js';

/** The operator's options; its own namespace also holds the operator's alert rules. */
export type MemcachedOperatorOptions = OperatorOptions;

/** Builds the operator's manager: the Memcached controller plus the alert-rule installer. */
export function createMemcachedOperator(options: MemcachedOperatorOptions = {}): Manager {
  const manager = operatorManager(options, {
    name: 'memcached-operator',
    leaderElectionId: 'memcached-operator.cache.example.com',
  });
  setupMemcachedController(manager, {
    env: options.env ?? process.env,
    maxConcurrentReconciles: options.maxConcurrentReconciles,
  });
  manager.add(prometheusRuleInstaller(manager.apiReader, operatorNamespace(options), manager.logger));
  return manager;
}
