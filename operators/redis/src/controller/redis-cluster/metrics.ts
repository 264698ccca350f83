// The operator's per-cluster Prometheus metrics.

import { Counter, Gauge, type Registry } from 'prom-client';
import type { SyncResult } from '../topology.js';

/** The operator's per-cluster metrics. */
export interface ClusterMetrics {
  readonly slotsAssigned: Gauge;
  readonly nodesReady: Gauge;
  readonly clusterOk: Gauge;
  readonly migrationsInProgress: Gauge;
  readonly failovers: Counter;
  readonly podRestarts: Counter;
}

export function clusterMetrics(registry: Registry): ClusterMetrics {
  const labelNames = ['namespace', 'name'] as const;
  return {
    slotsAssigned: new Gauge({
      name: 'redis_cluster_slots_assigned',
      help: 'Hash slots assigned to a primary (16384 when complete).',
      labelNames,
      registers: [registry],
    }),
    nodesReady: new Gauge({
      name: 'redis_cluster_nodes_ready',
      help: 'Redis nodes of the cluster that answer the operator.',
      labelNames,
      registers: [registry],
    }),
    clusterOk: new Gauge({
      name: 'redis_cluster_state_ok',
      help: '1 when CLUSTER INFO reports cluster_state:ok.',
      labelNames,
      registers: [registry],
    }),
    migrationsInProgress: new Gauge({
      name: 'redis_cluster_slot_migrations_in_progress',
      help: 'Hash slots still to migrate between primaries (scale-out, scale-in, rebalancing).',
      labelNames,
      registers: [registry],
    }),
    failovers: new Counter({
      name: 'redis_cluster_failovers_total',
      help: 'Replicas seen promoted to primary without the operator asking (Redis Cluster failovers).',
      labelNames,
      registers: [registry],
    }),
    podRestarts: new Counter({
      name: 'redis_cluster_pod_restarts_total',
      help: 'Pods the operator restarted to apply a new pod template (rolling restart).',
      labelNames,
      registers: [registry],
    }),
  };
}

type ClusterLabels = { readonly namespace: string; readonly name: string };

/** The gauges after a pass over the cluster. */
export function recordGauges(metrics: ClusterMetrics, labels: ClusterLabels, sync: SyncResult): void {
  metrics.slotsAssigned.set(labels, sync.slotsAssigned);
  metrics.nodesReady.set(labels, sync.readyNodes);
  metrics.clusterOk.set(labels, sync.clusterState === 'ok' ? 1 : 0);
  metrics.migrationsInProgress.set(labels, sync.migrationsInProgress);
}

/** Drops the gauges of a deleted cluster (the counters keep their totals). */
export function removeGauges(metrics: ClusterMetrics, labels: ClusterLabels): void {
  for (const gauge of [
    metrics.slotsAssigned,
    metrics.nodesReady,
    metrics.clusterOk,
    metrics.migrationsInProgress,
  ])
    gauge.remove(labels);
}
