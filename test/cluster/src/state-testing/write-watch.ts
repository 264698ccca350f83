import { setTimeout as delay } from 'node:timers/promises';
import type { KubeRest } from '../kube/rest.js';
import { endedTooSoon, RetryDelay } from '../kube/retry-delay.js';

/** A kind of object to watch, e.g. `{ apiVersion: 'apps/v1', plural: 'deployments' }`. */
export interface ResourceType {
  readonly apiVersion: string;
  readonly plural: string;
}

interface Watched {
  readonly metadata: {
    readonly name: string;
    readonly uid: string;
    readonly resourceVersion: string;
    readonly generation?: number;
    readonly ownerReferences?: readonly { readonly uid: string }[];
    readonly managedFields?: readonly {
      readonly manager?: string;
      readonly operation?: string;
      readonly subresource?: string;
      readonly time?: string;
    }[];
  };
}

/** One write seen: when, to what, by whom (the field manager of the object's latest managed fields). */
export interface SeenWrite {
  readonly at: number;
  readonly object: string;
  readonly by: string;
}

export function collectionPath(type: ResourceType, namespace: string): string {
  const prefix = type.apiVersion.includes('/') ? `/apis/${type.apiVersion}` : `/api/${type.apiVersion}`;
  return `${prefix}/namespaces/${namespace}/${type.plural}`;
}

function writer(object: Watched): string {
  // The last entry with the latest time (ISO timestamps order as strings).
  let latest: NonNullable<Watched['metadata']['managedFields']>[number] | undefined;
  for (const entry of object.metadata.managedFields ?? []) {
    if (!latest || (entry.time ?? '') >= (latest.time ?? '')) latest = entry;
  }
  if (!latest) return 'unknown';
  return `${latest.manager ?? 'unknown'} (${latest.operation ?? ''}${latest.subresource ? ` ${latest.subresource}` : ''})`;
}

/**
 * Watches the custom resource's kind and the kinds its operator owns in one namespace, and notes every write
 * (a new resourceVersion) to the object under test or to objects it owns directly: the runner's measure of
 * whether the operator has gone quiet. Also keeps the owned objects' generations, which change only when
 * their spec does.
 */
export class WriteWatch {
  readonly #rest: Pick<KubeRest, 'request' | 'watch'>;
  readonly #namespace: string;
  readonly #abort = new AbortController();
  readonly #versions = new Map<string, string>();
  readonly #generations = new Map<string, number>();
  readonly #recent: SeenWrite[] = [];
  readonly #running: Promise<void>[];
  #owner: { name: string; uid: string } | undefined;
  #lastWrite = Date.now();

  constructor(
    rest: Pick<KubeRest, 'request' | 'watch'>,
    namespace: string,
    readonly custom: ResourceType,
    owned: readonly ResourceType[],
  ) {
    this.#rest = rest;
    this.#namespace = namespace;
    this.#running = [custom, ...owned].map((type) => this.#follow(type));
  }

  /** Follow this object (and what it owns) from now on. */
  track(owner: { name: string; uid: string }): void {
    this.#owner = owner;
    this.#lastWrite = Date.now();
    this.#recent.length = 0;
  }

  /** When the last write was seen (or tracking began). */
  get lastWrite(): number {
    return this.#lastWrite;
  }

  /** The writes seen since `since`, newest last. */
  writesSince(since: number): SeenWrite[] {
    return this.#recent.filter((w) => w.at >= since);
  }

  /** The generation of every object the tracked one owns, by `plural/name`. */
  ownedGenerations(): Map<string, number> {
    return new Map(this.#generations);
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.allSettled(this.#running);
  }

  #seen(type: ResourceType, object: Watched, deleted: boolean): void {
    const key = `${type.plural}/${object.metadata.name}`;
    const changed = this.#versions.get(key) !== object.metadata.resourceVersion;
    if (deleted) this.#versions.delete(key);
    else this.#versions.set(key, object.metadata.resourceVersion);
    const owner = this.#owner;
    if (!owner || !changed) return;
    const isTracked = type === this.custom && object.metadata.uid === owner.uid;
    const isOwned = object.metadata.ownerReferences?.some((r) => r.uid === owner.uid) ?? false;
    if (!isTracked && !isOwned) return;
    if (isOwned) {
      if (deleted) this.#generations.delete(key);
      else this.#generations.set(key, object.metadata.generation ?? 0);
    }
    const at = Date.now();
    this.#lastWrite = at;
    this.#recent.push({ at, object: deleted ? `${key} (deleted)` : key, by: writer(object) });
    if (this.#recent.length > 50) this.#recent.shift();
  }

  async #follow(type: ResourceType): Promise<void> {
    const path = collectionPath(type, this.#namespace);
    const signal = this.#abort.signal;
    const backoff = new RetryDelay();
    while (!signal.aborted) {
      // Unset when the list or the watch failed.
      let watched: { readonly short: boolean; readonly events: number } | undefined;
      try {
        const list = await this.#rest.request<{ metadata: { resourceVersion: string }; items: Watched[] }>(
          'GET',
          path,
          { signal },
        );
        for (const item of list.items) this.#seen(type, item, false);
        const opened = performance.now();
        let events = 0;
        await this.#rest.watch<Watched>(
          path,
          { resourceVersion: list.metadata.resourceVersion },
          (event) => {
            events++;
            if (event.type === 'BOOKMARK') return;
            this.#seen(type, event.object, event.type === 'DELETED');
          },
          signal,
        );
        watched = { short: endedTooSoon(opened, events), events };
      } catch {
        if (signal.aborted) return;
      }
      // The watch ended (expired, or the connection dropped): list again, noting what changed meanwhile. A
      // failed list or watch, or one the server ended at once without an event, backs off as the runtime's
      // reflector does; only a watch that delivered events starts the back-off over.
      // An abort ends the wait early (and the loop).
      const wait = watched === undefined || watched.short ? backoff.next() : 100;
      if (watched !== undefined && !watched.short && watched.events > 0) backoff.reset();
      await delay(wait, undefined, { signal }).catch(() => undefined);
    }
  }
}
