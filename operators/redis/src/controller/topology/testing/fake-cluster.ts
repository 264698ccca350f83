// An in-memory Redis Cluster for unit tests of the topology phases: each node answers the RESP commands the
// phases send (CLUSTER MEET, ADDSLOTSRANGE, REPLICATE, SETSLOT, FORGET, FAILOVER, MIGRATE …), records them in
// order, and applies them to one shared model, so a test can check what a phase sent and observe the
// cluster again for the next pass.

import { formatRanges, parseClusterNodes, SLOTS } from '../../../redis/cluster.js';
import { type Arg, ReplyError, type RespValue } from '../../../redis/resp.js';
import { REDIS_PORT } from '../../resources.js';
import { createContext, type TopologyContext } from '../context.js';
import type { NodeConnection, Observed, PodInfo, SyncInput } from '../types.js';

/** A pod running a Redis node, as a test describes it. */
export interface FakeNodeSpec {
  /** `redis-<ordinal>`. */
  readonly pod: string;
  /** Hex, as CLUSTER NODES prints it. @default `a<ordinal>` */
  readonly id?: string;
  /** @default `10.0.0.<ordinal + 1>` */
  readonly ip?: string;
  /** Slot ranges as Redis prints them: `0-5460 5462`. */
  readonly slots?: string;
  /** The pod (or ghost ID) whose node this one replicates. */
  readonly replicaOf?: string;
  readonly keys?: number;
  readonly nodeName?: string;
  readonly outdated?: boolean;
  /** The pod is not ready (or does not answer): no phase sees its node. */
  readonly down?: boolean;
  /** The pods (or ghost IDs) this node knows besides itself. @default every pod */
  readonly knows?: readonly string[];
  /** Overrides cluster_state in this node's CLUSTER INFO. @default ok when every slot is served */
  readonly clusterState?: 'ok' | 'fail';
  /** INFO replication fields. @default an in-sync replica or a master */
  readonly replication?: Record<string, string>;
  /** Open slots: slot → the pod this node migrates it to / imports it from (or a node ID nobody has). */
  readonly migrating?: Readonly<Record<number, string>>;
  readonly importing?: Readonly<Record<number, string>>;
  /** The pods whose CLUSTER NODES flag this node fail (a partition, or a restart not yet noticed). */
  readonly markedFailingBy?: readonly string[];
}

/** A node some pods still list but that no pod runs (it lost its data, or was removed). */
export interface GhostSpec {
  readonly id: string;
  readonly ip: string;
  readonly slots?: string;
  /** The nodes that know it mark it fail. */
  readonly failing?: boolean;
  /** The pods that know it. @default every pod */
  readonly knownBy?: readonly string[];
}

interface NodeState {
  readonly pod: PodInfo | undefined;
  readonly id: string;
  readonly ip: string;
  primaryId: string | undefined;
  readonly slots: Set<number>;
  readonly migrating: Map<number, string>;
  readonly importing: Map<number, string>;
  readonly knows: Set<string>;
  readonly keys: number;
  readonly failing: boolean;
  readonly markedFailingBy: readonly string[];
  readonly clusterState: 'ok' | 'fail' | undefined;
  readonly replication: Record<string, string> | undefined;
}

export const ordinalOf = (pod: string) => Number(pod.slice(pod.lastIndexOf('-') + 1));

export function parseRanges(text: string | undefined): number[] {
  const slots: number[] = [];
  for (const field of (text ?? '').split(' ').filter(Boolean)) {
    const [from, to] = field.split('-').map(Number) as [number, number | undefined];
    for (let s = from; s <= (to ?? from); s++) slots.push(s);
  }
  return slots;
}

export class FakeCluster {
  /** Every command sent, in order: `redis-0: CLUSTER MEET 10.0.0.2 6379`. */
  readonly commands: string[] = [];
  readonly #nodes = new Map<string, NodeState>();
  readonly #pods: PodInfo[] = [];
  readonly #failures: { pod: string; command: RegExp; reply: string }[] = [];

  constructor(nodes: readonly FakeNodeSpec[], ghosts: readonly GhostSpec[] = []) {
    const idOf = (pod: string) => nodes.find((n) => n.pod === pod)?.id ?? `a${ordinalOf(pod)}`;
    const ids = (names: readonly string[]) =>
      names.map((n) => (nodes.some((s) => s.pod === n) ? idOf(n) : n));
    for (const spec of nodes) {
      const ordinal = ordinalOf(spec.pod);
      const ip = spec.ip ?? `10.0.0.${ordinal + 1}`;
      const pod: PodInfo = {
        name: spec.pod,
        ordinal,
        ip,
        ready: !spec.down,
        nodeName: spec.nodeName,
        ...(spec.outdated !== undefined ? { outdated: spec.outdated } : {}),
        uid: `uid-${spec.pod}`,
      };
      this.#pods.push(pod);
      const knows = spec.knows
        ? ids(spec.knows)
        : [...nodes.map((n) => idOf(n.pod)), ...ghosts.map((g) => g.id)];
      const openSlots = (marks: Readonly<Record<number, string>> | undefined) =>
        new Map(Object.entries(marks ?? {}).map(([slot, node]) => [Number(slot), ids([node])[0]!]));
      this.#nodes.set(idOf(spec.pod), {
        pod,
        id: idOf(spec.pod),
        ip,
        primaryId: spec.replicaOf ? ids([spec.replicaOf])[0] : undefined,
        slots: new Set(parseRanges(spec.slots)),
        migrating: openSlots(spec.migrating),
        importing: openSlots(spec.importing),
        knows: new Set(knows.filter((id) => id !== idOf(spec.pod))),
        keys: spec.keys ?? 0,
        failing: false,
        markedFailingBy: spec.markedFailingBy ?? [],
        clusterState: spec.clusterState,
        replication: spec.replication,
      });
    }
    for (const ghost of ghosts) {
      this.#nodes.set(ghost.id, {
        pod: undefined,
        id: ghost.id,
        ip: ghost.ip,
        primaryId: undefined,
        slots: new Set(parseRanges(ghost.slots)),
        migrating: new Map(),
        importing: new Map(),
        knows: new Set(),
        keys: 0,
        failing: ghost.failing ?? false,
        markedFailingBy: [],
        clusterState: undefined,
        replication: undefined,
      });
      if (ghost.knownBy) {
        for (const node of this.#nodes.values())
          if (node.pod && !ghost.knownBy.includes(node.pod.name)) node.knows.delete(ghost.id);
      }
    }
  }

  /** Makes `pod` answer commands matching `command` (on their joined text) with an error reply. */
  failOn(pod: string, command: RegExp, reply: string): this {
    this.#failures.push({ pod, command, reply });
    return this;
  }

  /** The slots a pod's node serves now. */
  slotsOf(pod: string): number[] {
    return [...this.#byPod(pod).slots].sort((a, b) => a - b);
  }

  /** The pod whose node `pod` replicates now, if any. */
  primaryOf(pod: string): string | undefined {
    const id = this.#byPod(pod).primaryId;
    return id ? this.#nodes.get(id)?.pod?.name : undefined;
  }

  /** What a pass sees now: every pod, and the nodes that answer, by ordinal as syncCluster lists them. */
  observe(): { pods: PodInfo[]; observed: Observed[] } {
    const observed: Observed[] = [];
    const byOrdinal = [...this.#nodes.values()].sort((a, b) => (a.pod?.ordinal ?? 0) - (b.pod?.ordinal ?? 0));
    for (const node of byOrdinal) {
      if (!node.pod?.ready) continue;
      const view = parseClusterNodes(this.#clusterNodes(node));
      observed.push({
        pod: node.pod,
        ip: node.ip,
        connection: this.#connection(node),
        view,
        self: view.find((n) => n.myself)!,
        info: this.#clusterInfo(node),
        replication: node.replication ?? this.#replication(node),
        keys: node.keys,
        previousPassword: false,
      });
    }
    return { pods: [...this.#pods].sort((a, b) => a.ordinal - b.ordinal), observed };
  }

  /** The context a phase gets, observed now, for `input` (pods taken from the model). */
  context(input: Omit<SyncInput, 'pods' | 'password'> & { password?: string }): TopologyContext {
    const { pods, observed } = this.observe();
    return createContext({ password: 'secret', ...input, pods }, pods, observed, () => {});
  }

  #byPod(pod: string): NodeState {
    const node = [...this.#nodes.values()].find((n) => n.pod?.name === pod);
    if (!node) throw new Error(`no pod ${pod}`);
    return node;
  }

  #served(): Set<number> {
    const served = new Set<number>();
    for (const node of this.#nodes.values()) if (node.pod) for (const s of node.slots) served.add(s);
    return served;
  }

  #clusterNodes(self: NodeState): string {
    const line = (node: NodeState) => {
      const role = node.primaryId ? 'slave' : 'master';
      const failing =
        node.failing || (self.pod !== undefined && node.markedFailingBy.includes(self.pod.name));
      const flags = [...(node === self ? ['myself'] : []), role, ...(failing ? ['fail'] : [])].join(',');
      const open = [
        ...[...node.migrating].map(([slot, id]) => `[${slot}->-${id}]`),
        ...[...node.importing].map(([slot, id]) => `[${slot}-<-${id}]`),
      ];
      const slots = formatRanges([...node.slots].sort((a, b) => a - b))
        .split(' ')
        .filter(Boolean);
      return [
        node.id,
        `${node.ip}:${REDIS_PORT}@1${REDIS_PORT}`,
        flags,
        node.primaryId ?? '-',
        '0',
        '0',
        '1',
        'connected',
        ...slots,
        ...(node === self ? open : []),
      ].join(' ');
    };
    const known = [...this.#nodes.values()].filter((n) => n === self || self.knows.has(n.id));
    return known.map(line).join('\n');
  }

  #clusterInfo(node: NodeState): Record<string, string> {
    const served = this.#served().size;
    return {
      cluster_state: node.clusterState ?? (served === SLOTS ? 'ok' : 'fail'),
      cluster_slots_assigned: String(served),
    };
  }

  #replication(node: NodeState): Record<string, string> {
    return node.primaryId
      ? { role: 'slave', master_link_status: 'up', master_sync_in_progress: '0' }
      : { role: 'master' };
  }

  #connection(node: NodeState): NodeConnection {
    const send = async (...args: Arg[]): Promise<RespValue> => this.#run(node, args);
    const call = async (...args: Arg[]): Promise<RespValue> => {
      const reply = await send(...args);
      if (reply instanceof ReplyError) throw reply;
      return reply;
    };
    return {
      send,
      call,
      callBinary: call,
      text: async (...args) => String(await call(...args)),
      close: () => {},
    };
  }

  #run(node: NodeState, args: Arg[]): RespValue {
    const text = args.map(String).join(' ');
    this.commands.push(`${node.pod?.name}: ${text}`);
    const failure = this.#failures.find((f) => f.pod === node.pod?.name && f.command.test(text));
    if (failure) return new ReplyError(failure.reply, String(args[0]));
    const [command, sub, ...rest] = args.map(String);
    if (command === 'ROLE') return [node.primaryId ? 'slave' : 'master'];
    if (command === 'MIGRATE') return 'NOKEY';
    if (command === 'CONFIG') return 'OK';
    if (command !== 'CLUSTER') throw new Error(`fake node does not know ${text}`);
    return this.#cluster(node, sub ?? '', rest) ?? 'OK';
  }

  #cluster(node: NodeState, sub: string, rest: string[]): RespValue | undefined {
    switch (sub) {
      case 'MEET': {
        const other = [...this.#nodes.values()].find((n) => n.ip === rest[0]);
        if (other) {
          node.knows.add(other.id);
          if (other.pod) other.knows.add(node.id);
        }
        return undefined;
      }
      case 'ADDSLOTSRANGE':
        for (let i = 0; i < rest.length; i += 2)
          for (let s = Number(rest[i]); s <= Number(rest[i + 1]); s++) node.slots.add(s);
        return undefined;
      case 'REPLICATE':
        node.primaryId = rest[0];
        node.slots.clear();
        return undefined;
      case 'FORGET':
        if (!node.knows.delete(rest[0] ?? '')) return new ReplyError('ERR Unknown node', 'CLUSTER');
        return undefined;
      case 'GETKEYSINSLOT':
        return [];
      case 'FAILOVER':
        this.#failover(node);
        return undefined;
      case 'SETSLOT':
        return this.#setSlot(node, Number(rest[0]), rest[1] ?? '', rest[2]);
      default:
        throw new Error(`fake node does not know CLUSTER ${sub}`);
    }
  }

  #setSlot(node: NodeState, slot: number, how: string, id: string | undefined): RespValue | undefined {
    if (how === 'IMPORTING') node.importing.set(slot, id ?? '');
    else if (how === 'MIGRATING') node.migrating.set(slot, id ?? '');
    else {
      node.importing.delete(slot);
      node.migrating.delete(slot);
      if (how === 'NODE') {
        for (const n of this.#nodes.values()) n.slots.delete(slot);
        this.#nodes.get(id ?? '')?.slots.add(slot);
      }
    }
    return undefined;
  }

  #failover(replica: NodeState): void {
    const primary = this.#nodes.get(replica.primaryId ?? '');
    if (!primary) return;
    for (const s of primary.slots) replica.slots.add(s);
    primary.slots.clear();
    for (const n of this.#nodes.values()) if (n.primaryId === primary.id) n.primaryId = replica.id;
    replica.primaryId = undefined;
    primary.primaryId = replica.id;
  }
}
