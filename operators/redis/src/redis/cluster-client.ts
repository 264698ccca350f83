import { keySlot, SLOTS } from './cluster.js';
import { type Arg, RedisConnection, RedisConnectionError, ReplyError, type RespValue } from './resp.js';

export interface ClusterClientOptions {
  readonly password?: string;
  /** Attempts per command across redirections and retries. @default 30 */
  readonly maxAttempts?: number;
  /** Pause before retrying after TRYAGAIN, CLUSTERDOWN or a connection failure. @default 200 */
  readonly retryDelayMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A cluster-aware client: routes each keyed command to the primary of the key's slot (from CLUSTER SLOTS),
 * follows MOVED (and refreshes the slot map) and ASK (ASKING on the target) redirections, and retries
 * TRYAGAIN, CLUSTERDOWN and connection failures after a pause.
 */
export class ClusterClient {
  readonly #seeds: string[];
  readonly #options: ClusterClientOptions;
  readonly #connections = new Map<string, Promise<RedisConnection>>();
  readonly #slots: (string | undefined)[] = new Array(SLOTS);
  /** Every node the last CLUSTER SLOTS named, primaries and replicas: where to ask next, seeds being gone. */
  #known: string[] = [];
  #refreshing: Promise<void> | undefined;
  /** MOVED and ASK redirections followed, for tests and diagnostics. */
  redirections = { moved: 0, ask: 0, retries: 0 };

  constructor(seeds: readonly string[], options: ClusterClientOptions = {}) {
    this.#seeds = [...seeds];
    this.#options = options;
  }

  /** Runs a command whose key is `args[keyIndex]` (default: the first argument after the command name). */
  async command(args: Arg[], keyIndex = 1): Promise<RespValue> {
    return (await this.#route(args, keyIndex))[0];
  }

  /**
   * SET, then `WAIT replicas timeoutMs` on the same connection: how many replicas had the write when WAIT
   * answered. Redis replicates asynchronously; only a write a replica holds survives its primary's failure.
   */
  async setReplicated(key: string, value: string, replicas = 1, timeoutMs = 1000): Promise<number> {
    const [, waited] = await this.#route(['SET', key, value], 1, ['WAIT', replicas, timeoutMs]);
    return typeof waited === 'number' ? waited : 0;
  }

  /** Sends `args` to the node serving its key, and `then` right behind it on the same connection. */
  async #route(args: Arg[], keyIndex: number, then?: Arg[]): Promise<[RespValue, RespValue | undefined]> {
    const key = args[keyIndex];
    const slot = keySlot(Buffer.isBuffer(key) ? key : String(key));
    const attempts = this.#options.maxAttempts ?? 30;
    let target = this.#slots[slot];
    let asking = false;
    let last: Error | undefined;
    let after: RespValue | undefined;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (!target) {
        await this.refresh();
        target = this.#slots[slot] ?? this.#seeds[attempt % this.#seeds.length]!;
      }
      let reply: RespValue;
      try {
        const connection = await this.#connection(target);
        const [, answer, next] = await Promise.all([
          asking ? connection.send('ASKING') : undefined,
          connection.send(...args),
          then ? connection.send(...then) : undefined,
        ]);
        reply = answer!;
        after = next;
      } catch (error) {
        if (!(error instanceof RedisConnectionError)) throw error;
        last = error;
        this.#drop(target);
        this.redirections.retries++;
        await sleep(this.#options.retryDelayMs ?? 200);
        this.#clearSlots();
        target = undefined;
        asking = false;
        continue;
      }
      asking = false;
      if (!(reply instanceof ReplyError)) return [reply, after];
      last = reply;
      const [kind, , address] = reply.reply.split(' ');
      if (kind === 'MOVED' && address) {
        this.redirections.moved++;
        this.#slots[slot] = address;
        target = address;
        void this.refresh().catch(() => {});
      } else if (kind === 'ASK' && address) {
        this.redirections.ask++;
        target = address;
        asking = true;
      } else if (
        kind === 'TRYAGAIN' ||
        kind === 'CLUSTERDOWN' ||
        kind === 'LOADING' ||
        kind === 'MASTERDOWN'
      ) {
        this.redirections.retries++;
        await sleep(this.#options.retryDelayMs ?? 200);
        if (kind !== 'TRYAGAIN') {
          this.#clearSlots();
          target = undefined;
        }
      } else {
        throw reply;
      }
    }
    throw last ?? new Error('command failed');
  }

  get(key: string): Promise<RespValue> {
    return this.command(['GET', key]);
  }

  set(key: string, value: string): Promise<RespValue> {
    return this.command(['SET', key, value]);
  }

  /** Reloads the slot map from the first node that answers CLUSTER SLOTS. */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#load().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #load(): Promise<void> {
    const known = new Set([
      ...this.#slots.filter((s): s is string => Boolean(s)),
      ...this.#known,
      ...this.#seeds,
    ]);
    let last: unknown;
    for (const address of known) {
      try {
        const connection = await this.#connection(address);
        const ranges = (await connection.call('CLUSTER', 'SLOTS')) as [
          number,
          number,
          ...[string, number][],
        ][];
        this.#clearSlots();
        const nodes = new Set<string>();
        for (const [from, to, primary, ...replicas] of ranges) {
          for (let s = from; s <= to; s++) this.#slots[s] = `${primary[0]}:${primary[1]}`;
          for (const [host, port] of [primary, ...replicas]) nodes.add(`${host}:${port}`);
        }
        this.#known = [...nodes];
        return;
      } catch (error) {
        last = error;
        this.#drop(address);
      }
    }
    throw last instanceof Error ? last : new RedisConnectionError('no cluster node answered CLUSTER SLOTS');
  }

  #clearSlots(): void {
    this.#slots.fill(undefined);
  }

  #connection(address: string): Promise<RedisConnection> {
    let connection = this.#connections.get(address);
    if (!connection) {
      connection = RedisConnection.connect(address, { password: this.#options.password });
      connection.catch(() => this.#connections.delete(address));
      this.#connections.set(address, connection);
    }
    return connection.then((c) => {
      if (c.closed) {
        this.#connections.delete(address);
        return this.#connection(address);
      }
      return c;
    });
  }

  #drop(address: string): void {
    const connection = this.#connections.get(address);
    this.#connections.delete(address);
    void connection?.then((c) => c.close()).catch(() => {});
  }

  close(): void {
    for (const address of [...this.#connections.keys()]) this.#drop(address);
  }
}
