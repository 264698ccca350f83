// Forms and keeps a Redis Cluster from the operator process, talking RESP to every pod. Every step reads the
// cluster's own state first (CLUSTER NODES from each node) and does only what is missing, so a reconcile that
// dies half-way (operator killed, node restarted) is resumed by the next one.
import {
  type ClusterNode,
  evenShare,
  formatRanges,
  parseClusterNodes,
  parseInfo,
  SLOTS,
  toRanges,
} from '../redis/cluster.js';
import { RedisConnection, ReplyError } from '../redis/resp.js';
import { REDIS_PORT } from './resources.js';

export interface PodInfo {
  readonly name: string;
  readonly ordinal: number;
  readonly ip: string | undefined;
  readonly ready: boolean;
  /** The Kubernetes node the pod runs on (to place replicas away from their primary). */
  readonly nodeName: string | undefined;
}

/** One reachable Redis node and what it says about itself and the cluster. */
interface Observed {
  readonly pod: PodInfo;
  readonly ip: string;
  readonly connection: RedisConnection;
  readonly view: ClusterNode[];
  readonly self: ClusterNode;
  readonly info: Record<string, string>;
  readonly keys: number;
}

export type Phase =
  | 'WaitingForPods'
  | 'Forgetting'
  | 'Meeting'
  | 'Joining'
  | 'Degraded'
  | 'AssigningSlots'
  | 'MigratingSlots'
  | 'Replicating'
  | 'Settling'
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
}

export interface SyncInput {
  /** Every pod of the StatefulSet, any ordinal. */
  readonly pods: readonly PodInfo[];
  readonly size: number;
  readonly primaries: number;
  readonly replicasPerPrimary: number;
  readonly password: string;
  /** Most slots to move in one pass (the next reconcile carries on). @default 2048 */
  readonly migrationBatch?: number;
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
}

const addressOf = (ip: string) => `${ip}:${REDIS_PORT}`;

async function observe(pod: PodInfo, password: string): Promise<Observed | undefined> {
  if (!pod.ip || !pod.ready) return undefined;
  let connection: RedisConnection;
  try {
    connection = await RedisConnection.connect(addressOf(pod.ip), {
      password,
      connectTimeoutMs: 2000,
      commandTimeoutMs: 10_000,
    });
  } catch {
    return undefined;
  }
  try {
    const [nodes, info, keys] = await Promise.all([
      connection.text('CLUSTER', 'NODES'),
      connection.text('CLUSTER', 'INFO'),
      connection.call('DBSIZE'),
    ]);
    const view = parseClusterNodes(nodes);
    const self = view.find((n) => n.myself);
    if (!self) throw new Error('CLUSTER NODES without myself');
    return { pod, ip: pod.ip, connection, view, self, info: parseInfo(info), keys: Number(keys) };
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

/** One pass over the cluster: observe, then take the first step that is missing. */
export async function syncCluster(input: SyncInput): Promise<SyncResult> {
  const log = input.log ?? (() => {});
  const pods = [...input.pods].sort((a, b) => a.ordinal - b.ordinal);
  const observed = (await Promise.all(pods.map((p) => observe(p, input.password)))).filter(
    (o): o is Observed => o !== undefined,
  );
  try {
    return await step(input, pods, observed, log);
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

  // 2. Introduce nodes to each other (CLUSTER MEET), also after a pod came back with a new IP.
  let met = 0;
  for (const o of participants) {
    if (o === anchor) continue;
    const seenByAnchor = anchor.view.find((n) => n.id === o.self.id);
    const seesAnchor = o.view.find((n) => n.id === anchor.self.id);
    if (!seenByAnchor || seenByAnchor.ip !== o.ip) {
      await clusterCall(anchor, ['MEET', o.ip, REDIS_PORT]);
      met++;
    }
    if (!seesAnchor || seesAnchor.ip !== anchor.ip) {
      await clusterCall(o, ['MEET', anchor.ip, REDIS_PORT]);
      met++;
    }
  }
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

  // 3. Finish migrations left open (a reconcile or the operator died half-way).
  const open: { from: Observed; to: Observed; slot: number }[] = [];
  const byId = new Map(participants.map((o) => [o.self.id, o]));
  for (const o of participants) {
    for (const [slot, id] of o.self.migrating) {
      const to = byId.get(id);
      if (to) open.push({ from: o, to, slot });
    }
    for (const [slot, id] of o.self.importing) {
      const from = byId.get(id);
      if (from && !open.some((x) => x.slot === slot)) open.push({ from, to: o, slot });
    }
  }
  if (open.length > 0) {
    for (const { from, to, slot } of open) await resumeMove(from, to, slot, input.password);
    actions.push({ reason: 'MigrationResumed', message: `finished ${open.length} open slot migration(s)` });
    return report('MigratingSlots', `finished ${open.length} open slot migration(s)`, {
      migrationsInProgress: open.length,
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
    const remaining =
      sources.reduce((n, s) => n + s.self.slots.length, 0) +
      targets.reduce((n, t) => n + Math.max(0, deficit(t)), 0);
    for (const { from, to, slots } of moves) {
      await moveSlots(from, to, slots, input.password);
      log('migrated slots', { from: from.pod.name, to: to.pod.name, slots: slots.length });
    }
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
  const pool: Observed[] = [];
  for (const m of members) {
    if (targets.includes(m)) continue;
    const primary = targets.find((t) => t.self.id === m.self.primaryId);
    if (m.self.role === 'replica' && primary && kept.get(primary)!.length < input.replicasPerPrimary) {
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
      .filter((t) => kept.get(t)!.length < input.replicasPerPrimary)
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
      actions.push({
        reason: 'NodeRemoved',
        message: `${l.pod.name} (${l.self.id}) removed from the cluster`,
      });
      log('forgot leaving node', { pod: l.pod.name });
    }
    return report('Forgetting', `removed ${leaving.length} node(s) from the cluster`);
  }

  // 9. Done when every node says cluster_state:ok and serves its share.
  const notOk = members.filter((m) => m.info.cluster_state !== 'ok');
  const short = targets.filter((t) => kept.get(t)!.length < input.replicasPerPrimary);
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
  return report(
    'Ready',
    `${targets.length} primaries with ${input.replicasPerPrimary} replica(s) each serve all ${SLOTS} slots`,
    {
      ready: true,
    },
  );
}

function followers(members: readonly Observed[], primary: Observed): Observed[] {
  return members.filter((m) => m.self.primaryId === primary.self.id);
}

/** Slot moves: everything off the sources, then from primaries above their quota to those below it. */
function planMoves(
  targets: readonly Observed[],
  sources: readonly Observed[],
  quota: ReadonlyMap<Observed, number>,
  budget: number,
): { from: Observed; to: Observed; slots: number[] }[] {
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
    budget -= slots.length;
  };
  const neediest = () =>
    [...targets].sort((a, b) => quota.get(b)! - count.get(b)! - (quota.get(a)! - count.get(a)!))[0]!;
  for (const s of sources) {
    while (available.get(s)!.length > 0 && budget > 0) {
      const to = neediest();
      const room = Math.max(1, quota.get(to)! - count.get(to)!);
      give(s, to, Math.min(room, available.get(s)!.length, budget));
    }
  }
  for (const from of targets) {
    while (count.get(from)! > quota.get(from)! && budget > 0) {
      const to = neediest();
      const room = quota.get(to)! - count.get(to)!;
      if (room <= 0) break;
      give(from, to, Math.min(room, count.get(from)! - quota.get(from)!, budget));
    }
  }
  return [...moves.values()].filter((m) => m.slots.length > 0);
}

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
      pending.map((s) => from.connection.callBinary('CLUSTER', 'GETKEYSINSLOT', s, 500) as Promise<Buffer[]>),
    );
    const next: number[] = [];
    const migrations: Promise<unknown>[] = [];
    pending.forEach((slot, i) => {
      const keys = found[i]!;
      if (keys.length === 0) return;
      next.push(slot);
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
    await Promise.all(batch.map((s) => to.connection.call('CLUSTER', 'SETSLOT', s, 'NODE', to.self.id)));
    await Promise.all(batch.map((s) => from.connection.call('CLUSTER', 'SETSLOT', s, 'NODE', to.self.id)));
  }
}

/** Completes one migration found open, whatever step it stopped at. */
async function resumeMove(from: Observed, to: Observed, slot: number, password: string): Promise<void> {
  const fromOwns = from.self.slots.includes(slot);
  const toOwns = to.self.slots.includes(slot);
  if (!fromOwns) {
    // The slot already changed hands (or never was the source's): clear what is left open.
    if (toOwns || to.self.importing.has(slot))
      await to.connection.call('CLUSTER', 'SETSLOT', slot, 'NODE', to.self.id);
    if (from.self.migrating.has(slot)) await from.connection.call('CLUSTER', 'SETSLOT', slot, 'STABLE');
    return;
  }
  if (!to.self.importing.has(slot))
    await to.connection.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', from.self.id);
  if (!from.self.migrating.has(slot))
    await from.connection.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', to.self.id);
  await migrateKeys(from, to, [slot], password);
  await to.connection.call('CLUSTER', 'SETSLOT', slot, 'NODE', to.self.id);
  await from.connection.call('CLUSTER', 'SETSLOT', slot, 'NODE', to.self.id);
  await sleep(0);
}
