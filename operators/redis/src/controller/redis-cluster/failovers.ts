// Failovers Redis Cluster made on its own: a node last seen as a replica is a primary now, and the operator
// did not promote it (the rolling restart's own failovers are no news).

import type { SyncResult } from '../topology.js';
import type { ClusterPass } from './context.js';

type Role = 'primary' | 'replica';

export class FailoverTracker {
  /** Cluster (namespace/name) → node ID → role at the last pass. */
  readonly #roles = new Map<string, Map<string, Role>>();
  /** Replicas the operator asked to take over (rolling restart): their promotion is no failover. */
  readonly #requested = new Map<string, Set<string>>();

  /** Counts and announces the failovers since the last pass, and remembers the roles of this one. */
  observe(pass: ClusterPass, sync: SyncResult): void {
    const { events, metrics, cr, namespace, labels } = pass;
    const key = `${namespace}/${cr.metadata.name}`;
    const before = this.#roles.get(key);
    const requested = this.#requested.get(key) ?? new Set<string>();
    for (const id of sync.promoted) requested.add(id);
    this.#requested.set(key, requested);
    if (before) {
      for (const [id, role] of sync.roles) {
        if (role !== 'primary' || before.get(id) !== 'replica') continue;
        if (requested.delete(id)) continue;
        metrics.failovers.inc(labels);
        const pod = sync.members.find((m) => m.nodeId === id)?.pod ?? id;
        events.event(cr, 'Warning', 'FailoverDetected', 'Observe', `replica ${pod} was promoted to primary`);
      }
    }
    this.#roles.set(key, new Map([...(before ?? []), ...sync.roles]));
  }

  /** The cluster is gone. */
  forget(key: string): void {
    this.#roles.delete(key);
    this.#requested.delete(key);
  }
}
