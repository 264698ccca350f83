import type { KubeObject } from '@opkit/controller-runtime';
import { DEFAULT_REPLICAS_PER_PRIMARY, type RedisClusterSpec, type RedisClusterStatus } from './schema.js';
import { clusterShape } from './shape.js';

export type { RedisClusterSpec, RedisClusterStatus, RedisNodeStatus } from './schema.js';

/** A RedisCluster custom resource. */
export interface RedisCluster extends KubeObject {
  spec: RedisClusterSpec;
  status?: RedisClusterStatus;
}

export function replicasPerPrimary(cr: Pick<RedisCluster, 'spec'>): number {
  return cr.spec.replicasPerPrimary ?? DEFAULT_REPLICAS_PER_PRIMARY;
}

/** Primaries the spec asks for: see {@link clusterShape}. */
export function primariesOf(cr: Pick<RedisCluster, 'spec'>): number {
  return clusterShape(cr.spec.size, replicasPerPrimary(cr)).primaries;
}
