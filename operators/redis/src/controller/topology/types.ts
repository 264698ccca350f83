// The shapes syncCluster takes and gives back, and what it knows of each Redis node it reached.

import type { ClusterNode } from '../../redis/cluster.js';
import type { RedisConnection } from '../../redis/resp.js';

export interface PodInfo {
  readonly name: string;
  readonly ordinal: number;
  readonly ip: string | undefined;
  readonly ready: boolean;
  /** The Kubernetes node the pod runs on (to place replicas away from their primary). */
  readonly nodeName: string | undefined;
  /** The pod runs an older pod template than the StatefulSet's (redis.conf, password, image …). */
  readonly outdated?: boolean;
  readonly uid?: string;
}

/** The part of a RESP connection the topology uses: one node, one command at a time. */
export type NodeConnection = Pick<RedisConnection, 'send' | 'call' | 'callBinary' | 'text' | 'close'>;

/** One reachable Redis node and what it says about itself and the cluster. */
export interface Observed {
  readonly pod: PodInfo;
  readonly ip: string;
  readonly connection: NodeConnection;
  readonly view: ClusterNode[];
  readonly self: ClusterNode;
  readonly info: Record<string, string>;
  /** INFO replication: role, master_link_status, master_sync_in_progress … */
  readonly replication: Record<string, string>;
  readonly keys: number;
  /** The node refused the current password and was reached with the previous one. */
  readonly previousPassword: boolean;
}

export type Phase =
  | 'WaitingForPods'
  | 'Forgetting'
  | 'Meeting'
  | 'Joining'
  | 'Degraded'
  | 'SlotsLost'
  | 'AssigningSlots'
  | 'MigratingSlots'
  | 'Replicating'
  | 'Settling'
  | 'RollingRestart'
  | 'RestartBlocked'
  | 'Ready';

export interface NodeReport {
  readonly pod: string;
  readonly ip?: string;
  readonly nodeId?: string;
  readonly role: 'primary' | 'replica' | 'unknown';
  readonly primaryId?: string;
  readonly slots?: string;
  readonly slotCount?: number;
}

/** Something done in a pass, for an event. */
export interface Action {
  readonly reason: string;
  readonly message: string;
}

export interface SyncResult {
  readonly phase: Phase;
  readonly message: string;
  /** Everything as desired: all slots served, cluster_state ok everywhere, replicas in place. */
  readonly ready: boolean;
  readonly clusterState: 'ok' | 'fail' | 'unknown';
  readonly slotsAssigned: number;
  readonly primaries: number;
  readonly readyNodes: number;
  readonly members: NodeReport[];
  /** Slots still to move (open or planned) when migrating. */
  readonly migrationsInProgress: number;
  /** Node IDs that turned from replica into primary without the operator asking (failovers). */
  readonly roles: ReadonlyMap<string, 'primary' | 'replica'>;
  /** Pods (by ordinal) that may go: the StatefulSet can shrink to this many. */
  readonly removablePodsFrom: number;
  /** Things done in this pass, for events. */
  readonly actions: readonly Action[];
  /** Every pod answered with the current password: the previous one is no longer needed. */
  readonly passwordSettled: boolean;
  /** Rolling restart: the pod to delete now (the StatefulSet recreates it from the current template). */
  readonly restartPod?: {
    readonly name: string;
    readonly uid: string | undefined;
    readonly role: string;
    /** The first pod of this roll: every member is outdated. */
    readonly first: boolean;
  };
  /** Node IDs of replicas the operator promoted itself (rolling restart), not counted as failovers. */
  readonly promoted: readonly string[];
}

export type Log = (message: string, fields?: Record<string, unknown>) => void;

export interface SyncInput {
  /** Every pod of the StatefulSet, any ordinal. */
  readonly pods: readonly PodInfo[];
  readonly size: number;
  readonly primaries: number;
  readonly replicasPerPrimary: number;
  readonly password: string;
  /**
   * The password the nodes were started with before a rotation: nodes that refuse `password` are reached with
   * it and switched to `password` at once (CONFIG SET), before the pods are restarted with the new file.
   */
  readonly previousPassword?: string;
  /** /data outlives a pod (a claim), so a primary without replicas may be restarted without losing keys. */
  readonly persistent?: boolean;
  /**
   * The pods' template revision is known: false right after the StatefulSet's template changed, until its
   * controller has recorded the new revision (pods cannot be told current or outdated yet).
   */
  readonly revisionKnown?: boolean;
  /**
   * IDs of lost primaries (gone with their data, no replica) whose slots the user accepts to serve again,
   * empty: from the annotation {@link ACCEPT_SLOT_LOSS_ANNOTATION}, comma-separated.
   */
  readonly acceptSlotLossOf?: string;
  /** Most slots each source primary gives away in one pass (the next reconcile carries on). @default 2048 */
  readonly migrationBatch?: number;
  readonly log?: Log;
}

/** Names the lost primaries whose slots the user accepts to serve again, without their keys. */
export const ACCEPT_SLOT_LOSS_ANNOTATION = 'cache.example.com/accept-slot-loss';
