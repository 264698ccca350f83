export { redisClusterCrd } from './crd.js';
export * from './schema.js';
export { type ClusterShape, clusterShape, replicaQuota } from './shape.js';
export { primariesOf, type RedisCluster, replicasPerPrimary } from './types.js';
export { isRedisCluster, type ValidationProblem, validateRedisCluster } from './validate.js';
