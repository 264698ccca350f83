// Forms and keeps a Redis Cluster from the operator process, talking RESP to every pod. Every step reads the
// cluster's own state first (CLUSTER NODES from each node) and does only what is missing, so a reconcile that
// dies half-way (operator killed, node restarted) is resumed by the next one.

import { replicaQuota } from '../api/v1/redis-cluster-shape.js';
import {
  type ClusterNode,
  evenShare,
  formatRanges,
  parseClusterNodes,
  parseInfo,
  SLOTS,
  toRanges,
} from '../redis/cluster.js';
import { RedisConnection, ReplyError, type RespValue } from '../redis/resp.js';
import { REDIS_PORT } from './resources.js';

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

/** One reachable Redis node and what it says about itself and the cluster. */
interface Observed {
  readonly pod: PodInfo;
  readonly ip: string;
  readonly connection: RedisConnection;
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
  readonly actions: readonly { reason: string; message: string }[];
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
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
}

const addressOf = (ip: string) => `${ip}:${REDIS_PORT}`;

/** Names the lost primaries whose slots the user accepts to serve again, without their keys. */
export const ACCEPT_SLOT_LOSS_ANNOTATION = 'cache.example.com/accept-slot-loss';

const connectTo = (ip: string, password: string) =>
  RedisConnection.connect(addressOf(ip), { password, connectTimeoutMs: 2000, commandTimeoutMs: 10_000 });

const wrongPassword = (error: unknown) =>
  error instanceof ReplyError && (error.kind === 'WRONGPASS' || /invalid password/i.test(error.reply));

async function observe(pod: PodInfo, password: string, previous?: string): Promise<Observed | undefined> {
  if (!pod.ip || !pod.ready) return undefined;
  let connection: RedisConnection;
  let previousPassword = false;
  try {
    connection = await connectTo(pod.ip, password);
  } catch (error) {
    if (previous === undefined || !wrongPassword(error)) return undefined;
    try {
      connection = await connectTo(pod.ip, previous);
      previousPassword = true;
    } catch {
      return undefined;
    }
  }
  try {
    const [nodes, info, replication, keys] = await Promise.all([
      connection.text('CLUSTER', 'NODES'),
      connection.text('CLUSTER', 'INFO'),
      connection.text('INFO', 'replication'),
      connection.call('DBSIZE'),
    ]);
    const view = parseClusterNodes(nodes);
    const self = view.find((n) => n.myself);
    if (!self) throw new Error('CLUSTER NODES without myself');
    return {
      pod,
      ip: pod.ip,
      connection,
      view,
      self,
      info: parseInfo(info),
      replication: parseInfo(replication),
      keys: Number(keys),
      previousPassword,
    };
  } catch {
    connection.close();
    return undefined;
  }
}

/** Runs `CLUSTER …` and ignores the listed error replies (already done). */
async function clusterCall(node: Observed, args: (string | number)[], ignore: RegExp[] = []): Promise<void> {
  const reply = await node.connection.send('CLUSTER', ...args);
  if (reply instanceof ReplyError && !ignore.some((r) => r.test(reply.reply))) throw reply;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Password rotation: nodes still on the previous password take the current one at once, for clients
 * (requirepass) and for replication (masterauth), so the cluster never runs with two passwords for longer
 * than one pass. Connections already authenticated stay so; the pods are restarted with the new auth.conf
 * afterwards by the rolling restart. Returns how many nodes were switched.
 */
async function switchPassword(observed: readonly Observed[], password: string): Promise<number> {
  const stale = observed.filter((o) => o.previousPassword);
  await Promise.all(
    stale.map((o) => o.connection.call('CONFIG', 'SET', 'masterauth', password, 'requirepass', password)),
  );
  return stale.length;
}

/** One pass over the cluster: observe, then take the first step that is missing. */
export async function syncCluster(input: SyncInput): Promise<SyncResult> {
  const log = input.log ?? (() => {});
  const pods = [...input.pods].sort((a, b) => a.ordinal - b.ordinal);
  const observed = (
    await Promise.all(pods.map((p) => observe(p, input.password, input.previousPassword)))
  ).filter((o): o is Observed => o !== undefined);
  try {
    const switched = await switchPassword(observed, input.password);
    const result = await step(input, pods, observed, log);
    return switched > 0
      ? {
          ...result,
          actions: [
            { reason: 'PasswordChanged', message: `${switched} node(s) switched to the new password` },
            ...result.actions,
          ],
        }
      : result;
  } finally {
    for (const o of observed) o.connection.close();
  }
}

async function step(
  input: SyncInput,
  pods: PodInfo[],
  observed: Observed[],
  log: (message: string, fields?: Record<string, unknown>) => void,
): Promise<SyncResult> {
  const actions: { reason: string; message: string }[] = [];
  const byPod = new Map(observed.map((o) => [o.pod.name, o]));
  const members = observed.filter((o) => o.pod.ordinal < input.size);
  const memberPods = pods.filter((p) => p.ordinal < input.size);
  const anchor = members.find((m) => m.pod.ordinal === 0) ?? members[0];
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
      members: pods.map((p) => {
        const o = byPod.get(p.name);
        if (!o) return { pod: p.name, ...(p.ip ? { ip: p.ip } : {}), role: 'unknown' as const };
        return {
          pod: p.name,
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

  // 0. Every member pod must be up and answering before the topology is touched.
  if (members.length < input.size || !anchor) {
    const missing = memberPods.filter((p) => !byPod.has(p.name)).map((p) => p.name);
    const message = `${members.length} of ${input.size} Redis nodes reachable${missing.length ? ` (waiting for ${missing.join(', ')})` : ''}`;
    // Nodes of a formed cluster that stop answering are a failure; new pods starting up are not.
    const knownIps = new Set(participants.flatMap((o) => o.view.map((n) => n.ip)));
    const formed = memberPods.some((p) => !byPod.has(p.name) && p.ip !== undefined && knownIps.has(p.ip));
    return report(formed ? 'Degraded' : 'WaitingForPods', message);
  }

  // 1. Forget nodes that belong to no pod (a pod that lost its data came back under a new ID), once they
  //    serve no slot. Only when every pod answers, so no live node is mistaken for a stale one.
  if (observed.length === pods.length) {
    const podIds = new Set(observed.map((o) => o.self.id));
    const servesSlots = (id: string) =>
      participants.some((p) => p.view.some((v) => v.id === id && v.slots.length > 0));
    // A replica cannot forget its own primary: it follows a live primary first (step 7 moves it).
    const forgetters = (id: string) =>
      participants.filter((m) => m.self.primaryId !== id && m.view.some((v) => v.id === id));
    // A primary gone with its data (its pod came back under a new ID) and with no replica left to take over:
    // nobody serves its slots and nothing will until the user accepts that their keys are lost.
    const lost = new Map<string, readonly number[]>();
    for (const m of participants)
      for (const n of m.view)
        if (
          !podIds.has(n.id) &&
          !n.handshake &&
          n.failing &&
          n.slots.length > 0 &&
          !participants.some((p) => p.self.primaryId === n.id)
        )
          lost.set(n.id, n.slots);
    if (lost.size > 0) {
      const accepted = new Set((input.acceptSlotLossOf ?? '').split(',').map((id) => id.trim()));
      const forgiven = [...lost.keys()].filter((id) => accepted.has(id));
      if (forgiven.length === 0) {
        const described = [...lost].map(([id, slots]) => `${formatRanges(slots)} (node ${id})`).join(', ');
        return report(
          'SlotsLost',
          `slots ${described} were served by a primary that is gone with its data and had no replica: their keys ` +
            `are lost and no node serves them. To serve them again, empty, annotate the RedisCluster with ` +
            `${ACCEPT_SLOT_LOSS_ANNOTATION}=${[...lost.keys()].join(',')}`,
        );
      }
      for (const id of forgiven) {
        for (const m of forgetters(id))
          await clusterCall(m, ['FORGET', id], [/Unknown node/i, /forget myself/i]);
        actions.push({
          reason: 'SlotLossAccepted',
          message: `forgot lost primary ${id}: its slots ${formatRanges(lost.get(id) ?? [])} are served again, empty`,
        });
        log('forgot lost primary', { nodeId: id });
      }
      return report(
        'Forgetting',
        `forgot ${forgiven.length} lost primary(ies); their slots are reassigned next`,
      );
    }
    const stale = new Set<string>();
    for (const m of participants)
      for (const n of m.view)
        if (!podIds.has(n.id) && !n.handshake && !servesSlots(n.id) && forgetters(n.id).length > 0)
          stale.add(n.id);
    if (stale.size > 0) {
      for (const id of stale) {
        for (const m of forgetters(id))
          await clusterCall(m, ['FORGET', id], [/Unknown node/i, /forget myself/i]);
        actions.push({ reason: 'NodeForgotten', message: `forgot node ${id}, which belongs to no pod` });
        log('forgot stale node', { nodeId: id });
      }
      return report('Forgetting', `forgot ${stale.size} stale node(s)`);
    }
  }

  // 2. Introduce nodes to each other (CLUSTER MEET), also after a pod came back with a new IP. Every pair that
  //    does not know each other meets directly: gossip alone takes seconds to tell everyone of a new node.
  const knows = (a: Observed, b: Observed) =>
    a.view.some((n) => n.ip === b.ip && (n.id === b.self.id || n.handshake));
  const meetings: Promise<void>[] = [];
  for (const [i, a] of participants.entries()) {
    for (const b of participants.slice(i + 1)) {
      if (knows(a, b) && knows(b, a)) continue;
      // The node that does not know the other sends MEET; the handshake teaches both.
      const [from, to] = knows(a, b) ? [b, a] : [a, b];
      meetings.push(clusterCall(from, ['MEET', to.ip, REDIS_PORT]));
    }
  }
  await Promise.all(meetings);
  const met = meetings.length;
  if (met > 0) {
    actions.push({ reason: 'NodesMet', message: `introduced ${met} node link(s) with CLUSTER MEET` });
    return report('Meeting', `introduced ${met} node link(s) with CLUSTER MEET`);
  }
  const disagreeing = participants.filter((o) =>
    participants.some((p) => {
      const n = o.view.find((v) => v.id === p.self.id);
      return !n || n.ip !== p.ip || n.failing || (n.role === 'replica') !== (p.self.role === 'replica');
    }),
  );
  if (disagreeing.length > 0) {
    const failing = participants.filter((p) => anchor.view.find((n) => n.id === p.self.id)?.failing);
    return report(
      failing.length > 0 ? 'Degraded' : 'Joining',
      failing.length > 0
        ? `nodes marked failing: ${failing.map((f) => f.pod.name).join(', ')}`
        : `waiting for ${disagreeing.length} node(s) to agree on the cluster membership`,
    );
  }

  // 3. Finish migrations left open (a reconcile or the operator died half-way), per pair of nodes at once.
  const open = new Map<string, { from: Observed; to: Observed; slots: Set<number> }>();
  const byId = new Map(participants.map((o) => [o.self.id, o]));
  const addOpen = (from: Observed, to: Observed, slot: number) => {
    const key = `${from.self.id}>${to.self.id}`;
    const entry = open.get(key) ?? { from, to, slots: new Set<number>() };
    entry.slots.add(slot);
    open.set(key, entry);
  };
  // A mark naming a node nobody knows any more (it was removed) can only be cleared.
  const unknown = (id: string) => !byId.has(id) && !participants.some((p) => p.view.some((v) => v.id === id));
  const orphans: Promise<unknown>[] = [];
  for (const o of participants) {
    for (const [slot, id] of o.self.migrating) {
      const to = byId.get(id);
      if (to) addOpen(o, to, slot);
      else if (unknown(id)) orphans.push(o.connection.call('CLUSTER', 'SETSLOT', slot, 'STABLE'));
    }
    for (const [slot, id] of o.self.importing) {
      const from = byId.get(id);
      if (from) addOpen(from, o, slot);
      else if (unknown(id)) orphans.push(o.connection.call('CLUSTER', 'SETSLOT', slot, 'STABLE'));
    }
  }
  await Promise.all(orphans);
  if (open.size > 0 || orphans.length > 0) {
    let count = orphans.length;
    for (const { from, to, slots } of open.values()) {
      await resumeMoves(
        from,
        to,
        [...slots].sort((a, b) => a - b),
        input.password,
      );
      count += slots.size;
    }
    actions.push({ reason: 'MigrationResumed', message: `finished ${count} open slot migration(s)` });
    return report('MigratingSlots', `finished ${count} open slot migration(s)`, {
      migrationsInProgress: count,
    });
  }

  // 4. Choose the primaries: those serving the most slots, then empty masters by ordinal.
  const holders = members
    .filter((m) => m.self.role === 'primary' && m.self.slots.length > 0)
    .sort((a, b) => b.self.slots.length - a.self.slots.length || a.pod.ordinal - b.pod.ordinal);
  let targets = holders.slice(0, input.primaries);
  if (targets.length < input.primaries) {
    const empties = members.filter(
      (m) => m.self.role === 'primary' && m.self.slots.length === 0 && m.keys === 0 && !targets.includes(m),
    );
    // An empty master already followed by replicas is the better new primary.
    empties.sort(
      (a, b) => followers(members, b).length - followers(members, a).length || a.pod.ordinal - b.pod.ordinal,
    );
    targets = [...targets, ...empties.slice(0, input.primaries - targets.length)];
  }
  targets.sort((a, b) => a.pod.ordinal - b.pod.ordinal);
  if (targets.length < input.primaries) {
    return report(
      'Degraded',
      `only ${targets.length} of ${input.primaries} primaries possible: not enough empty Redis nodes`,
    );
  }

  // 5. Serve every slot: a new cluster gets an even split; slots nobody serves go to the primary the even
  //    split names.
  if (allSlots.size < SLOTS) {
    const perTarget = new Map<Observed, number[]>();
    for (let s = 0; s < SLOTS; s++) {
      if (allSlots.has(s)) continue;
      const index = targets.findIndex((_, i) => {
        const [from, to] = evenShare(i, targets.length);
        return s >= from && s <= to;
      });
      const t = targets[index]!;
      perTarget.set(t, [...(perTarget.get(t) ?? []), s]);
    }
    for (const [t, slots] of perTarget) {
      const args = toRanges(slots).flat();
      await clusterCall(t, ['ADDSLOTSRANGE', ...args]);
      log('assigned slots', { pod: t.pod.name, slots: formatRanges(slots) });
    }
    const message =
      allSlots.size === 0
        ? `assigned ${SLOTS} slots over ${targets.length} primaries`
        : `assigned ${SLOTS - allSlots.size} unserved slot(s)`;
    actions.push({ reason: allSlots.size === 0 ? 'ClusterCreated' : 'SlotsAssigned', message });
    return report('AssigningSlots', message);
  }

  // 6. Move slots: off primaries that must go (leaving pods, surplus primaries), then evenly over the rest.
  const sources = participants.filter((o) => o.self.slots.length > 0 && !targets.includes(o));
  const quota = new Map(
    targets.map((t, i) => [t, evenShare(i, targets.length)[1] - evenShare(i, targets.length)[0] + 1]),
  );
  const deficit = (t: Observed) => quota.get(t)! - t.self.slots.length;
  const unbalanced = targets.some((t) => deficit(t) > Math.ceil(quota.get(t)! * 0.05));
  if (sources.length > 0 || unbalanced) {
    const moves = planMoves(targets, sources, quota, input.migrationBatch ?? 2048);
    // A node that just joined (or rejoined) reports cluster_state:fail for a moment and refuses the keys
    // MIGRATE sends it (CLUSTERDOWN): wait for every node a move touches.
    const notOk = [...new Set(moves.flatMap((m) => [m.from, m.to]))].filter(
      (o) => o.info.cluster_state !== 'ok',
    );
    if (notOk.length > 0) {
      return report(
        'Settling',
        `waiting for cluster_state:ok on ${notOk.map((o) => o.pod.name).join(', ')} before moving slots`,
      );
    }
    // Slots to move: all of the sources', and the surplus of primaries above their quota.
    const remaining =
      sources.reduce((n, s) => n + s.self.slots.length, 0) +
      targets.reduce((n, t) => n + Math.max(0, -deficit(t)), 0);
    // Sources work in parallel, each through its moves in turn (a primary runs one MIGRATE at a time anyway).
    // Not when a node both gives and takes: its epoch bump as a target could outrank, on the other nodes, a
    // claim it has not yet acknowledged as a source.
    const givers = new Set(moves.map((m) => m.from));
    const lanes = moves.some((m) => givers.has(m.to))
      ? [moves]
      : [...givers].map((g) => moves.filter((m) => m.from === g));
    const outcomes = await Promise.allSettled(
      lanes.map(async (lane) => {
        for (const { from, to, slots } of lane) {
          await moveSlots(from, to, slots, input.password);
          log('migrated slots', { from: from.pod.name, to: to.pod.name, slots: slots.length });
        }
      }),
    );
    const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
    if (failures.length > 0 && failures.every(clusterBusy)) {
      // A node briefly not serving (cluster_state:fail while it learns of a change): the open slots are
      // finished by step 3 on the next pass.
      return report('Settling', `slot migration paused: ${(failures[0] as Error).message}`, {
        migrationsInProgress: remaining,
      });
    }
    if (failures.length > 0) throw failures[0];
    const moved = moves.reduce((n, m) => n + m.slots.length, 0);
    actions.push({
      reason: 'SlotsMigrated',
      message: moves.map((m) => `${m.slots.length} slots ${m.from.pod.name} → ${m.to.pod.name}`).join(', '),
    });
    return report(
      'MigratingSlots',
      `migrated ${moved} slot(s); about ${Math.max(0, remaining - moved)} to go`,
      {
        migrationsInProgress: Math.max(0, remaining - moved),
      },
    );
  }

  // 7. Replicas: every other member follows a primary; each primary gets replicasPerPrimary of them,
  //    preferably on another Kubernetes node.
  const kept = new Map<Observed, Observed[]>(targets.map((t) => [t, []]));
  // A size that does not divide evenly gives some primaries one replica more than the others: those that
  // already have the most followers, so no replica moves from one pass (or failover) to the next.
  const byFollowers = [...targets].sort(
    (a, b) =>
      followers(members, b).length - followers(members, a).length || targets.indexOf(a) - targets.indexOf(b),
  );
  const replicaTarget = (t: Observed) =>
    Math.min(input.replicasPerPrimary, replicaQuota(input.size, targets.length, byFollowers.indexOf(t)));
  const pool: Observed[] = [];
  for (const m of members) {
    if (targets.includes(m)) continue;
    const primary = targets.find((t) => t.self.id === m.self.primaryId);
    if (m.self.role === 'replica' && primary && kept.get(primary)!.length < replicaTarget(primary)) {
      kept.get(primary)!.push(m);
    } else {
      pool.push(m);
    }
  }
  // Followers of leaving nodes and empty masters are re-homed; a master with keys or slots is left alone.
  const movable = pool.filter(
    (m) => m.self.role === 'replica' || (m.self.slots.length === 0 && m.keys === 0),
  );
  let attached = 0;
  for (;;) {
    const short = targets
      .filter((t) => kept.get(t)!.length < replicaTarget(t))
      .sort((a, b) => kept.get(a)!.length - kept.get(b)!.length)[0];
    if (!short || movable.length === 0) break;
    const pick =
      movable.find((m) => m.pod.nodeName !== short.pod.nodeName && m.self.primaryId === short.self.id) ??
      movable.find((m) => m.pod.nodeName !== short.pod.nodeName) ??
      movable[0]!;
    movable.splice(movable.indexOf(pick), 1);
    kept.get(short)!.push(pick);
    if (pick.self.primaryId !== short.self.id) {
      await clusterCall(pick, ['REPLICATE', short.self.id]);
      attached++;
      log('attached replica', { pod: pick.pod.name, primary: short.pod.name });
    }
  }
  if (attached > 0) {
    actions.push({
      reason: 'ReplicasAttached',
      message: `attached ${attached} replica(s) to their primaries`,
    });
    return report('Replicating', `attached ${attached} replica(s)`);
  }

  // 8. Scale-in: leaving nodes serve nothing now and nobody follows them; every node forgets them.
  const blocking = leaving.filter((l) => members.some((m) => m.self.primaryId === l.self.id));
  if (blocking.length === 0 && leaving.length > 0) {
    for (const l of leaving) {
      for (const m of members) await clusterCall(m, ['FORGET', l.self.id], [/Unknown node/i]);
      log('forgot leaving node', { pod: l.pod.name, nodeId: l.self.id });
    }
    actions.push({
      reason: 'NodeRemoved',
      message: `${leaving.map((l) => l.pod.name).join(', ')} removed from the cluster`,
    });
    return report('Forgetting', `removed ${leaving.length} node(s) from the cluster`);
  }

  // 9. Done when every node says cluster_state:ok and serves its share.
  const notOk = members.filter((m) => m.info.cluster_state !== 'ok');
  const short = targets.filter((t) => kept.get(t)!.length < replicaTarget(t));
  if (notOk.length > 0) {
    return report('Settling', `waiting for cluster_state:ok on ${notOk.map((m) => m.pod.name).join(', ')}`);
  }
  if (short.length > 0) {
    return report(
      'Degraded',
      `${short.length} primary(ies) lack replicas and no node is free to follow them`,
      {
        ready: false,
      },
    );
  }

  // 10. Rolling restart: pods started from an older template (redis.conf, password, image …) restart one at
  //     a time, replicas first. A primary first hands its slots to an in-sync replica (CLUSTER FAILOVER, which
  //     waits for the replica to catch up), so clients see MOVED and no write is lost; it then restarts as a
  //     replica. Only from a healthy cluster: each step waits for the previous restart to have synced.
  if (input.revisionKnown === false) {
    return report('RollingRestart', 'waiting for the StatefulSet controller to record the current revision');
  }
  const outdated = members.filter((m) => m.pod.outdated);
  if (outdated.length > 0) {
    const togo = `${outdated.length} of ${members.length} pod(s) to restart`;
    const syncing = members.filter((m) => m.self.role === 'replica' && !inSync(m));
    if (syncing.length > 0) {
      return report(
        'RollingRestart',
        `${togo}; waiting for ${syncing.map((m) => m.pod.name).join(', ')} to sync`,
      );
    }
    const restart = (o: Observed) =>
      report('RollingRestart', `${togo}; restarting ${o.self.role} ${o.pod.name}`, {
        restartPod: {
          name: o.pod.name,
          uid: o.pod.uid,
          role: o.self.role,
          first: outdated.length === members.length,
        },
      });
    const replica = outdated.find((m) => m.self.role === 'replica');
    if (replica) return restart(replica);
    const primary = outdated[0]!;
    const heir = followers(members, primary).find(inSync);
    if (heir) {
      const promoted = await failover(heir);
      actions.push({
        reason: 'FailoverRequested',
        message: `${heir.pod.name} takes over from primary ${primary.pod.name} before its restart`,
      });
      log('requested failover', { pod: heir.pod.name, primary: primary.pod.name, promoted });
      return report(
        'RollingRestart',
        `${togo}; ${heir.pod.name} ${promoted ? 'took' : 'is taking'} over from ${primary.pod.name}`,
        { promoted: [heir.self.id] },
      );
    }
    if (!input.persistent) {
      return report(
        'RestartBlocked',
        `${outdated.map((m) => m.pod.name).join(', ')} run an outdated configuration, but restarting a primary ` +
          'without a replica on an emptyDir would lose its keys: delete the pod to apply it',
      );
    }
    return restart(primary);
  }

  return report(
    'Ready',
    `${targets.length} primaries with ${targets.map(replicaTarget).join('/')} replica(s) serve all ${SLOTS} slots`,
    {
      ready: true,
    },
  );
}

/** A replica linked to its primary and not in a full sync. */
function inSync(replica: Observed): boolean {
  return (
    replica.replication.master_link_status === 'up' && replica.replication.master_sync_in_progress === '0'
  );
}

/** CLUSTER FAILOVER on a replica; waits up to 10 s for it to report itself primary. */
async function failover(replica: Observed): Promise<boolean> {
  await clusterCall(replica, ['FAILOVER']);
  for (let i = 0; i < 100; i++) {
    const role = (await replica.connection.call('ROLE')) as RespValue[];
    if (role[0] === 'master') return true;
    await sleep(100);
  }
  return false;
}

function followers(members: readonly Observed[], primary: Observed): Observed[] {
  return members.filter((m) => m.self.primaryId === primary.self.id);
}

/** Errors of a node that is up but not serving for a moment: CLUSTERDOWN, TRYAGAIN, LOADING (also via MIGRATE). */
function clusterBusy(error: unknown): boolean {
  return error instanceof ReplyError && /(^|: )(CLUSTERDOWN|TRYAGAIN|LOADING)\b/.test(error.reply);
}

/** Slot moves: everything off the sources, then from primaries above their quota to those below it. */
function planMoves(
  targets: readonly Observed[],
  sources: readonly Observed[],
  quota: ReadonlyMap<Observed, number>,
  budget: number,
): { from: Observed; to: Observed; slots: number[] }[] {
  const spent = new Map<Observed, number>();
  const left = (from: Observed) => budget - (spent.get(from) ?? 0);
  const count = new Map(targets.map((t) => [t, t.self.slots.length]));
  const available = new Map<Observed, number[]>();
  for (const o of [...sources, ...targets]) available.set(o, [...o.self.slots]);
  const moves = new Map<string, { from: Observed; to: Observed; slots: number[] }>();
  const give = (from: Observed, to: Observed, n: number) => {
    const slots = available.get(from)!.splice(-n, n);
    const key = `${from.self.id}>${to.self.id}`;
    const move = moves.get(key) ?? { from, to, slots: [] };
    move.slots.push(...slots);
    moves.set(key, move);
    if (count.has(from)) count.set(from, count.get(from)! - slots.length);
    count.set(to, count.get(to)! + slots.length);
    spent.set(from, (spent.get(from) ?? 0) + slots.length);
  };
  const neediest = () =>
    [...targets].sort((a, b) => quota.get(b)! - count.get(b)! - (quota.get(a)! - count.get(a)!))[0]!;
  for (const s of sources) {
    while (available.get(s)!.length > 0 && left(s) > 0) {
      const to = neediest();
      const room = Math.max(1, quota.get(to)! - count.get(to)!);
      give(s, to, Math.min(room, available.get(s)!.length, left(s)));
    }
  }
  for (const from of targets) {
    while (count.get(from)! > quota.get(from)! && left(from) > 0) {
      const to = neediest();
      const room = quota.get(to)! - count.get(to)!;
      if (room <= 0) break;
      give(from, to, Math.min(room, count.get(from)! - quota.get(from)!, left(from)));
    }
  }
  return [...moves.values()].filter((m) => m.slots.length > 0);
}

const KEYS_PER_MIGRATE = 500;

/** Moves keys of slots that are MIGRATING on `from` to `to`, in batches, until none are left. */
async function migrateKeys(
  from: Observed,
  to: Observed,
  slots: readonly number[],
  password: string,
): Promise<void> {
  let pending = [...slots];
  while (pending.length > 0) {
    const found = await Promise.all(
      pending.map(
        (s) =>
          from.connection.callBinary('CLUSTER', 'GETKEYSINSLOT', s, KEYS_PER_MIGRATE) as Promise<Buffer[]>,
      ),
    );
    const next: number[] = [];
    const migrations: Promise<unknown>[] = [];
    pending.forEach((slot, i) => {
      const keys = found[i]!;
      if (keys.length === 0) return;
      // Fewer than asked for is all of them: keys a client creates now go to the target (ASK).
      if (keys.length === KEYS_PER_MIGRATE) next.push(slot);
      migrations.push(
        from.connection
          .send('MIGRATE', to.ip, REDIS_PORT, '', 0, 10_000, 'REPLACE', 'AUTH', password, 'KEYS', ...keys)
          .then((reply) => {
            if (reply instanceof ReplyError && !/NOKEY/.test(reply.reply)) throw reply;
          }),
      );
    });
    await Promise.all(migrations);
    pending = next;
  }
}

/** Live migration of slots from one primary to another: IMPORTING, MIGRATING, MIGRATE the keys, SETSLOT NODE. */
async function moveSlots(
  from: Observed,
  to: Observed,
  slots: readonly number[],
  password: string,
): Promise<void> {
  const chunk = 256;
  for (let i = 0; i < slots.length; i += chunk) {
    const batch = slots.slice(i, i + chunk);
    await Promise.all(
      batch.map((s) => to.connection.call('CLUSTER', 'SETSLOT', s, 'IMPORTING', from.self.id)),
    );
    await Promise.all(
      batch.map((s) => from.connection.call('CLUSTER', 'SETSLOT', s, 'MIGRATING', to.self.id)),
    );
    await migrateKeys(from, to, batch, password);
    await claimOnTarget(to, batch);
    await Promise.all(batch.map((s) => assignOnSource(from, s, to.self.id)));
  }
}

/**
 * SETSLOT NODE on the target of a move, before the source: once the target owns the slots under the
 * cluster's highest config epoch, the source and everyone else can only agree. On an IMPORTING slot that
 * command bumps the epoch and also broadcasts a pong to every node, for each slot: that storm (each pong
 * rewrites and fsyncs nodes.conf on every receiver) made SETSLOT NODE the bulk of a move's time. So only the
 * first slot goes that way, for the epoch; the rest are closed (STABLE) and then claimed, which only records
 * the owner, and the target's regular gossip spreads them under the epoch it now has.
 */
async function claimOnTarget(to: Observed, slots: readonly number[]): Promise<void> {
  const [first, ...rest] = slots;
  if (first === undefined) return;
  await to.connection.call('CLUSTER', 'SETSLOT', first, 'NODE', to.self.id);
  await Promise.all(
    rest.flatMap((s) => [
      to.connection.call('CLUSTER', 'SETSLOT', s, 'STABLE'),
      to.connection.call('CLUSTER', 'SETSLOT', s, 'NODE', to.self.id),
    ]),
  );
}

/**
 * SETSLOT NODE on the source of a move. A primary that gave away its last slot turns itself into a replica
 * of the node that took it (Redis 7, cluster-allow-replica-migration) as soon as it hears of the new owner,
 * and then refuses SETSLOT: the slot is not its own any more either way.
 */
async function assignOnSource(from: Observed, slot: number, toId: string): Promise<void> {
  const reply = await from.connection.send('CLUSTER', 'SETSLOT', slot, 'NODE', toId);
  if (reply instanceof ReplyError && !/only with masters/i.test(reply.reply)) throw reply;
}

/** Completes migrations found open between two nodes, whatever step each stopped at. */
async function resumeMoves(
  from: Observed,
  to: Observed,
  slots: readonly number[],
  password: string,
): Promise<void> {
  const calls: Promise<unknown>[] = [];
  const unfinished: number[] = [];
  for (const slot of slots) {
    if (to.self.slots.includes(slot)) {
      // Stopped after the target claimed the slot: only marks are left.
      if (to.self.importing.has(slot))
        calls.push(to.connection.call('CLUSTER', 'SETSLOT', slot, 'NODE', to.self.id));
      if (from.self.migrating.has(slot)) calls.push(assignOnSource(from, slot, to.self.id));
    } else if (!from.self.slots.includes(slot)) {
      // Neither side owns the slot (its owner failed over, say): the keys are elsewhere; clear the marks.
      if (to.self.importing.has(slot)) calls.push(to.connection.call('CLUSTER', 'SETSLOT', slot, 'STABLE'));
      if (from.self.migrating.has(slot))
        calls.push(from.connection.call('CLUSTER', 'SETSLOT', slot, 'STABLE'));
    } else {
      unfinished.push(slot);
    }
  }
  await Promise.all(calls);
  if (unfinished.length === 0) return;
  await Promise.all(
    unfinished
      .filter((s) => !to.self.importing.has(s))
      .map((s) => to.connection.call('CLUSTER', 'SETSLOT', s, 'IMPORTING', from.self.id)),
  );
  await Promise.all(
    unfinished
      .filter((s) => !from.self.migrating.has(s))
      .map((s) => from.connection.call('CLUSTER', 'SETSLOT', s, 'MIGRATING', to.self.id)),
  );
  await migrateKeys(from, to, unfinished, password);
  await claimOnTarget(to, unfinished);
  await Promise.all(unfinished.map((s) => assignOnSource(from, s, to.self.id)));
}
