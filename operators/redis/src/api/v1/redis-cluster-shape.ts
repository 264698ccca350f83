import { DEFAULT_REPLICAS_PER_PRIMARY, MIN_PRIMARIES, type RedisCluster } from './redis-cluster.js';

/**
 * How `size` nodes split into primaries and replicas. Redis Cluster needs at least 3 primaries; beyond that
 * there are as few primaries as let each keep at most `replicasPerPrimary` replicas, so a size that does not
 * divide evenly still forms a cluster: the spare nodes follow the first primaries (size 3 → 3 primaries,
 * size 5 → 3 primaries, 2 of them with a replica).
 */
export interface ClusterShape {
  readonly primaries: number;
  /** Replicas of primary i, i in [0, primaries): the first ones take the remainder. */
  readonly replicas: readonly number[];
}

export function clusterShape(size: number, replicasPerPrimary: number): ClusterShape {
  const primaries = Math.min(size, Math.max(MIN_PRIMARIES, Math.ceil(size / (replicasPerPrimary + 1))));
  const followers = size - primaries;
  const base = Math.floor(followers / primaries);
  const extra = followers % primaries;
  return { primaries, replicas: Array.from({ length: primaries }, (_, i) => base + (i < extra ? 1 : 0)) };
}

/** Replicas primary `index` of a cluster of `size` nodes keeps (0 past the last primary). */
export function replicaQuota(size: number, primaries: number, index: number): number {
  if (index >= primaries) return 0;
  const followers = Math.max(0, size - primaries);
  return Math.floor(followers / primaries) + (index < followers % primaries ? 1 : 0);
}

export function replicasPerPrimary(cr: Pick<RedisCluster, 'spec'>): number {
  return cr.spec.replicasPerPrimary ?? DEFAULT_REPLICAS_PER_PRIMARY;
}

/** Primaries the spec asks for: see {@link clusterShape}. */
export function primariesOf(cr: Pick<RedisCluster, 'spec'>): number {
  return clusterShape(cr.spec.size, replicasPerPrimary(cr)).primaries;
}
