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

export interface TrafficReport {
  /** Writes, each read back at once. */
  readonly ops: number;
  /** Operations that failed after the client's own retries, or read back something else. */
  readonly failures: string[];
}

/**
 * Clients working while the cluster changes under them: a few workers that each write a key and read it back,
 * over and over, through a cluster-aware client (which follows MOVED/ASK and retries briefly, as real ones do).
 */
export function startTraffic(
  client: ClusterClient,
  prefix: string,
  workers = 4,
): { stop(): Promise<TrafficReport> } {
  let running = true;
  let ops = 0;
  const failures: string[] = [];
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let i = 0; running; i++) {
      const key = `${prefix}:${w}:${i % 1000}`;
      const value = `${i}`;
      try {
        await client.set(key, value);
        const read = await client.get(key);
        if (read !== value) failures.push(`${key}: read ${String(read)} after writing ${value}`);
        ops++;
      } catch (error) {
        failures.push(`${key}: ${(error as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return { ops, failures };
    },
  };
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
