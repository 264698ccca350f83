// Cluster shapes the topology tests start from.

import { evenShare } from '../../../redis/cluster.js';
import type { FakeNodeSpec } from './fake-cluster.js';

/** The slots primary `index` of `count` serves in an even split, as Redis prints them. */
export function share(index: number, count: number): string {
  const [from, to] = evenShare(index, count);
  return `${from}-${to}`;
}

/** redis-0 … redis-<n-1>, each on its own Kubernetes node, serving an even split of the slots. */
export function primaries(count: number): FakeNodeSpec[] {
  return Array.from({ length: count }, (_, i) => ({
    pod: `redis-${i}`,
    nodeName: `node-${i}`,
    slots: share(i, count),
  }));
}

/** Three primaries (redis-0 … redis-2) and a replica of each (redis-3 … redis-5) on another Kubernetes node. */
export function formedCluster(): FakeNodeSpec[] {
  return [
    ...primaries(3),
    ...[0, 1, 2].map((i) => ({
      pod: `redis-${i + 3}`,
      nodeName: `node-${(i + 1) % 3}`,
      replicaOf: `redis-${i}`,
    })),
  ];
}

/** Pods that never joined a cluster: empty masters knowing only themselves. */
export function freshNodes(count: number): FakeNodeSpec[] {
  return Array.from({ length: count }, (_, i) => ({
    pod: `redis-${i}`,
    nodeName: `node-${i % 3}`,
    knows: [],
  }));
}
