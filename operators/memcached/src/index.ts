export * from './api/index.js';
export {
  FINALIZER,
  memcachedReconciler,
  setupMemcachedController,
} from './controller/memcached-controller.js';
export { memcachedControllerRbac, monitoringRbac } from './controller/rbac.js';
export {
  desiredDeployment,
  desiredPodDisruptionBudget,
  desiredService,
  labelsFor,
  memcachedArgs,
} from './controller/resources.js';
export { memcachedPrometheusRule, prometheusRuleInstaller } from './monitoring/prometheus-rule.js';
export { createMemcachedOperator, type MemcachedOperatorOptions } from './operator.js';
