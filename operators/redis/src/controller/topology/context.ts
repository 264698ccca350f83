// What every phase of a pass reads (the nodes reached and how they stand against the desired shape) and how
// a phase reports back: the actions it took and the SyncResult that ends the pass.

import { formatRanges } from '../../redis/cluster.js';
import type { Action, Log, Observed, Phase, PodInfo, SyncInput, SyncResult } from './types.js';

export interface TopologyContext {
  readonly input: SyncInput;
  /** Every pod of the StatefulSet, by ordinal. */
  readonly pods: readonly PodInfo[];
  /** Every node that answered. */
  readonly observed: readonly Observed[];
  readonly byPod: ReadonlyMap<string, Observed>;
  /** Pods below `size`, and those of them that answered. */
  readonly memberPods: readonly PodInfo[];
  readonly members: readonly Observed[];
  /** The node whose CLUSTER INFO speaks for the cluster (see {@link speaksForCluster}). */
  readonly anchor: Observed | undefined;
  /** Nodes of pods at or above `size` that a member still knows. */
  readonly leaving: readonly Observed[];
  /** Members and leaving nodes: everyone the topology works with. */
  readonly participants: readonly Observed[];
  /** Every slot some participant sees served. */
  readonly allSlots: ReadonlySet<number>;
  readonly log: Log;
  /** Things done in this pass; phases append to it. */
  readonly actions: Action[];
  /** The result of the pass, from the phase that ends it. */
  report(phase: Phase, message: string, extra?: Partial<SyncResult>): SyncResult;
}

/** Every member answered, so one of them speaks for the cluster. */
export interface ReachableContext extends TopologyContext {
  readonly anchor: Observed;
}

/** The primaries chosen for the desired shape are known. */
export interface ShapedContext extends ReachableContext {
  /** The primaries, by ordinal. */
  readonly targets: readonly Observed[];
}

/**
 * The member whose CLUSTER INFO speaks for the cluster: a primary serving slots before any other node, then the
 * one that knows the most nodes, then the lowest ordinal (ordinal 0 in a formed cluster, or one still forming).
 * A pod that came back empty is none of these: it knows only itself at first, then for a while does not yet
 * see the slots served, and its cluster_state would call failed a cluster its primaries go on serving.
 */
export function speaksForCluster(members: readonly Observed[]): Observed | undefined {
  const servesSlots = (o: Observed) => o.self.role === 'primary' && o.self.slots.length > 0;
  const before = (a: Observed, b: Observed) =>
    servesSlots(a) !== servesSlots(b)
      ? servesSlots(a)
      : a.view.length !== b.view.length
        ? a.view.length > b.view.length
        : a.pod.ordinal < b.pod.ordinal;
  return members.reduce<Observed | undefined>((best, m) => (!best || before(m, best) ? m : best), undefined);
}

/**
 * Pod `ordinal`'s name, from the StatefulSet's rule (`<name>-<ordinal>`) and any of its pods; undefined when no
 * pod exists to take the name from.
 */
export function podName(pods: readonly PodInfo[], ordinal: number): string | undefined {
  const any = pods[0];
  return any === undefined ? undefined : `${any.name.slice(0, any.name.lastIndexOf('-'))}-${ordinal}`;
}

/**
 * Every member pod by name, those not there at the moment (deleted for a restart, not yet created) included,
 * then the pods above `size` that are still there: a restart does not shorten the list and lengthen it again.
 */
function membersAndLeaving(size: number, pods: readonly PodInfo[]): string[] {
  const names = Array.from({ length: size }, (_, ordinal) => podName(pods, ordinal));
  const leaving = [...pods].filter((p) => p.ordinal >= size).sort((a, b) => a.ordinal - b.ordinal);
  return [...names.filter((n): n is string => n !== undefined), ...leaving.map((p) => p.name)];
}

export function createContext(
  input: SyncInput,
  pods: readonly PodInfo[],
  observed: readonly Observed[],
  log: Log,
): TopologyContext {
  const actions: Action[] = [];
  const byPod = new Map(observed.map((o) => [o.pod.name, o]));
  const members = observed.filter((o) => o.pod.ordinal < input.size);
  const memberPods = pods.filter((p) => p.ordinal < input.size);
  const anchor = speaksForCluster(members);
  // Leaving pods still part of the cluster (known to a member) take part until they are forgotten.
  const leaving = observed.filter(
    (o) => o.pod.ordinal >= input.size && members.some((m) => m.view.some((n) => n.id === o.self.id)),
  );
  const participants = [...members, ...leaving];
  const allSlots = new Set<number>();
  for (const m of participants) for (const n of m.view) for (const s of n.slots) allSlots.add(s);
  const roles = new Map<string, 'primary' | 'replica'>(participants.map((o) => [o.self.id, o.self.role]));
  const clusterState = anchor ? (anchor.info.cluster_state === 'ok' ? 'ok' : 'fail') : 'unknown';

  const report = (phase: Phase, message: string, extra: Partial<SyncResult> = {}): SyncResult => {
    const leavingPods = pods.filter((p) => p.ordinal >= input.size);
    const stillKnown = leavingPods.filter((p) => {
      const o = byPod.get(p.name);
      // A leaving pod we cannot reach is kept until it can be checked, unless no member knows its last ID.
      return o ? members.some((m) => m.view.some((n) => n.id === o.self.id)) : true;
    });
    return {
      phase,
      message,
      ready: false,
      clusterState,
      slotsAssigned: Number(anchor?.info.cluster_slots_assigned ?? 0),
      primaries: new Set(participants.filter((o) => o.self.role === 'primary' && o.self.slots.length > 0))
        .size,
      readyNodes: members.length,
      members: membersAndLeaving(input.size, pods).map((name) => {
        const o = byPod.get(name);
        // A node is recorded once it answers: its pod's address before that would be one more status write
        // for every pod a roll restarts, and the pod itself may not exist yet.
        if (!o) return { pod: name, role: 'unknown' as const };
        return {
          pod: name,
          ip: o.ip,
          nodeId: o.self.id,
          role: o.self.role,
          ...(o.self.primaryId ? { primaryId: o.self.primaryId } : {}),
          ...(o.self.role === 'primary'
            ? { slots: formatRanges(o.self.slots), slotCount: o.self.slots.length }
            : {}),
        };
      }),
      migrationsInProgress: 0,
      roles,
      removablePodsFrom: Math.max(input.size, ...stillKnown.map((p) => p.ordinal + 1)),
      actions,
      passwordSettled: observed.length === pods.length,
      promoted: [],
      ...extra,
    };
  };

  return {
    input,
    pods,
    observed,
    byPod,
    memberPods,
    members,
    anchor,
    leaving,
    participants,
    allSlots,
    log,
    actions,
    report,
  };
}
