export * from './api/v1/index.js';
export { redisClusterControllerRbac } from './controller/rbac.js';
export {
  clusterMetrics,
  redisClusterReconciler,
  setupRedisClusterController,
} from './controller/redis-cluster-controller.js';
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
export { createRedisOperator, type RedisOperatorOptions } from './operator.js';
export { keySlot, parseClusterNodes, parseInfo } from './redis/cluster.js';
export { ClusterClient } from './redis/cluster-client.js';
export { RedisConnection, ReplyError } from './redis/resp.js';
