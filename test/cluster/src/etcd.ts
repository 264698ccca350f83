/**
 * Direct access to the cluster's etcd through its v3 JSON gateway, for tests that must change storage behind
 * the API server's back: delete objects while the apiserver is down, compact history to force 410 Gone.
 */
export class EtcdAccess {
  readonly #endpoint: string;

  constructor(endpoint: string) {
    this.#endpoint = endpoint;
  }

  async #call<T>(path: string, body: object): Promise<T> {
    const res = await fetch(`${this.#endpoint}${path}`, { method: 'POST', body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`etcd ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }

  /** The current store revision. */
  async revision(): Promise<number> {
    const r = await this.#call<{ header: { revision: string } }>('/v3/kv/range', { key: b64('/'), limit: 1 });
    return Number(r.header.revision);
  }

  /** Deletes one stored object, e.g. `/registry/configmaps/<namespace>/<name>`. */
  async deleteKey(key: string): Promise<number> {
    const r = await this.#call<{ deleted?: string }>('/v3/kv/deleterange', { key: b64(key) });
    return Number(r.deleted ?? 0);
  }

  /** Discards all history before the current revision: watches from older versions then get 410 Gone. */
  async compact(): Promise<number> {
    const revision = await this.revision();
    await this.#call('/v3/kv/compaction', { revision: String(revision), physical: true });
    return revision;
  }
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
