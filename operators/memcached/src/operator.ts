import { type Manager, type OperatorOptions, operatorManager } from '@opkit/controller-runtime';
import {
  operatorNamespace,
  storageVersionMigrator,
  webhooksEnabled,
} from '@opkit/controller-runtime/manager';
import { prometheusRuleInstaller } from '@opkit/controller-runtime/monitoring';
import { GROUP, PLURAL, setupWebhooks } from './api/index.js';
import { memcachedCache } from './controller/cache.js';
import { setupControllers } from './controller/index.js';
import { memcachedPrometheusRule } from './monitoring/rules.js';

/** The operator's options; its own namespace also holds the operator's alert rules. */
export type MemcachedOperatorOptions = OperatorOptions;

/**
 * Builds the operator's manager: the Memcached controller (see src/controller/index.ts), its webhooks and the
 * storage version migration (unless `ENABLE_WEBHOOKS=false`, for a run outside the cluster, where v1alpha1
 * cannot be served) and the alert-rule installer.
 */
export function createMemcachedOperator(options: MemcachedOperatorOptions = {}): Manager {
  const manager = operatorManager(options, {
    name: 'memcached-operator',
    leaderElectionId: 'memcached-operator.cache.example.com',
    cache: { byObject: memcachedCache },
  });
  setupControllers(manager, options);
  if (webhooksEnabled(options)) {
    setupWebhooks(manager);
    // Objects stored as v1alpha1 before the upgrade to v1beta1 storage are rewritten, so a later version can
    // stop serving v1alpha1 (reading them needs the conversion webhook, hence only with webhooks). The CRD is
    // named from the API's constants: its assembly is build-time code the operator's bundle leaves out.
    manager.add(storageVersionMigrator(manager.apiClient, `${PLURAL}.${GROUP}`, manager.logger));
  }
  const rule = memcachedPrometheusRule(operatorNamespace(options));
  manager.add(prometheusRuleInstaller(manager.apiClient, rule, manager.logger, 'memcached-operator'));
  return manager;
}
