export * from './api/index.js';
export * from './controller/index.js';
export {
  desiredDeployment,
  desiredPodDisruptionBudget,
  desiredService,
  labelsFor,
  memcachedArgs,
} from './controller/resources.js';
export { memcachedPrometheusRule, memcachedRuleGroups } from './monitoring/rules.js';
export { createMemcachedOperator, type MemcachedOperatorOptions } from './operator.js';
