export * from './api/index.js';
export * from './api/v1/redis-cluster-shape.js';
export * from './controller/index.js';
export {
  authConf,
  desiredClientService,
  desiredConfigMap,
  desiredHeadlessService,
  desiredPodDisruptionBudget,
  desiredStatefulSet,
  labelsFor,
  redisConf,
} from './controller/resources.js';
export { syncCluster } from './controller/topology.js';
export { redisPrometheusRule, redisRuleGroups } from './monitoring/rules.js';
export { createRedisOperator, type RedisOperatorOptions } from './operator.js';
export { keySlot, parseClusterNodes, parseInfo } from './redis/cluster.js';
export { ClusterClient } from './redis/cluster-client.js';
export { RedisConnection, ReplyError } from './redis/resp.js';
