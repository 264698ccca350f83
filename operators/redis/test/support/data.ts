import { type ClusterClient, parseClusterNodes, RedisConnection } from '../../src/index.js';

/**
 * 10,000 keys written through the cluster-aware client. Each `write()` stores new values, so `missing()` after
 * a change proves the latest write survived, not an older copy.
 */
export class KeySet {
  readonly keys: string[];
  #round = 0;

  constructor(
    /** Replaceable, e.g. by a client with a new password. */
    public client: ClusterClient,
    prefix: string,
    count = 10_000,
  ) {
    this.keys = Array.from({ length: count }, (_, i) => `${prefix}:${i}`);
  }

  async write(): Promise<void> {
    this.#round++;
    for (let i = 0; i < this.keys.length; i += 500)
      await Promise.all(this.keys.slice(i, i + 500).map((k) => this.client.set(k, this.#value(k))));
  }

  /** Keys whose value is not the last one written. */
  async missing(): Promise<string[]> {
    const missing: string[] = [];
    for (let i = 0; i < this.keys.length; i += 500) {
      const batch = this.keys.slice(i, i + 500);
      const values = await Promise.all(batch.map((k) => this.client.get(k)));
      values.forEach((v, j) => {
        if (v !== this.#value(batch[j]!)) missing.push(batch[j]!);
      });
    }
    return missing;
  }

  #value(key: string): string {
    return `${this.#round}:${key}`;
  }
}

/**
 * What "acknowledged" means here. Redis replicates asynchronously: a primary answers SET before any replica
 * has the write, so a primary that fails right after can take it along, by design. A write is *acknowledged*
 * when SET answered OK and `WAIT 1` on the same connection then said a replica holds it; only those must
 * survive an unplanned failover. A SET answered OK without that (*unreplicated*) is counted apart: the
 * operator's own changes (scaling, rolling restarts) must keep those too, a crashed primary may not.
 */
export interface LoadReport {
  /** SETs sent (each once, retried by the client inside). */
  readonly writes: number;
  /** SETs answered OK whose write a replica held (WAIT ≥ 1). */
  readonly acknowledged: number;
  /** SETs answered OK that no replica confirmed within the WAIT timeout. */
  readonly unreplicated: number;
  /** Operations that failed after the client's own retries (errors, timeouts). */
  readonly clientErrors: number;
  /** Read-backs compared: one after every answered write, then one per key at the end. */
  readonly readsChecked: number;
  /** Keys whose value is older than their last acknowledged write, at once or at the end. */
  readonly lost: string[];
  /** Keys whose value is older than their last write answered OK but not confirmed by a replica. */
  readonly lostUnreplicated: string[];
}

/** Per key, the sequence numbers of its last writes; values are `<sequence>` so a read says which write it is. */
interface KeyState {
  attempted: number;
  answered: number;
  acknowledged: number;
}

/**
 * Clients writing and reading while the cluster changes under them: workers each own a set of keys and, over
 * and over, SET one (with `WAIT 1`), then GET it back, through a cluster-aware client that follows MOVED/ASK
 * and retries briefly, as real ones do. `stop()` ends the load, reads every key once more and compares.
 */
export function startLoad(
  client: ClusterClient,
  prefix: string,
  { workers = 4, keysPerWorker = 250 } = {},
): { stop(): Promise<LoadReport> } {
  let running = true;
  const keys = new Map<string, KeyState>();
  let writes = 0;
  let acknowledged = 0;
  let unreplicated = 0;
  let clientErrors = 0;
  let readsChecked = 0;
  const lost = new Set<string>();
  const lostUnreplicated = new Set<string>();
  /** A read of `key` that returned `value`: lost if older than the last acknowledged (or answered) write. */
  const check = (key: string, state: KeyState, value: unknown) => {
    readsChecked++;
    const seen = typeof value === 'string' ? Number(value) : -1;
    // A later write whose answer the client never got may have applied; older than the last answer is lost.
    if (seen < state.acknowledged || seen > state.attempted) lost.add(key);
    else if (seen < state.answered) lostUnreplicated.add(key);
  };
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let sequence = 0; running; sequence++) {
      const key = `${prefix}:${w}:${sequence % keysPerWorker}`;
      const state = keys.get(key) ?? { attempted: -1, answered: -1, acknowledged: -1 };
      keys.set(key, state);
      state.attempted = sequence;
      writes++;
      try {
        const replicas = await client.setReplicated(key, String(sequence));
        state.answered = sequence;
        if (replicas >= 1) {
          state.acknowledged = sequence;
          acknowledged++;
        } else {
          unreplicated++;
        }
        check(key, state, await client.get(key));
      } catch {
        clientErrors++;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      const all = [...keys];
      for (let i = 0; i < all.length; i += 200) {
        const batch = all.slice(i, i + 200);
        const values = await Promise.all(batch.map(([key]) => client.get(key)));
        batch.forEach(([key, state], j) => {
          check(key, state, values[j]);
        });
      }
      return {
        writes,
        acknowledged,
        unreplicated,
        clientErrors,
        readsChecked,
        lost: [...lost],
        lostUnreplicated: [...lostUnreplicated].filter((k) => !lost.has(k)),
      };
    },
  };
}

/** One line for CI logs, e.g. `redis load scale-out 6→12: 48,213 acknowledged writes, 0 lost, …`. */
export function describeLoad(phase: string, r: LoadReport): string {
  const n = (x: number) => x.toLocaleString('en-US');
  return (
    `redis load ${phase}: ${n(r.acknowledged)} acknowledged writes (a replica had them), ${n(r.lost.length)} lost; ` +
    `${n(r.unreplicated)} answered without a replica, ${n(r.lostUnreplicated.length)} of those keys lost; ` +
    `${n(r.clientErrors)} client errors of ${n(r.writes)} writes; ${n(r.readsChecked)} reads checked`
  );
}

/** Slots a node itself marks MIGRATING or IMPORTING (CLUSTER NODES shows them on its own line only). */
export async function openSlots(address: string, password: string): Promise<number> {
  const c = await RedisConnection.connect(address, { password, connectTimeoutMs: 1000 });
  try {
    const self = parseClusterNodes(await c.text('CLUSTER', 'NODES')).find((n) => n.myself)!;
    return self.migrating.size + self.importing.size;
  } finally {
    c.close();
  }
}
