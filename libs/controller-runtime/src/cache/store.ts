import { type KubeObject, objectKey } from '../object.js';
import { parseLabelSelector } from './label-selector.js';

/** Computes the values an object is indexed under (e.g. its owner UIDs). */
export type IndexFunc<T> = (obj: T) => readonly string[];

/** Freezes an object graph so readers of the cache cannot corrupt it (mutations throw in strict mode). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}

/** Built-in index: objects by the UIDs of their owners. */
export const OWNER_UID_INDEX = 'metadata.ownerReferences.uid';
/** Built-in index: objects by namespace. */
const NAMESPACE_INDEX = 'metadata.namespace';

/**
 * The objects of one informer, keyed `namespace/name`, with indexes. Stored objects are deep-frozen, so reads
 * hand them out without copying and no caller can change what another caller sees.
 */
export class Store<T extends KubeObject> {
  readonly #items = new Map<string, T>();
  readonly #indexers = new Map<string, IndexFunc<T>>();
  readonly #indexes = new Map<string, Map<string, Set<string>>>();

  constructor() {
    this.addIndex(NAMESPACE_INDEX, (o) => (o.metadata.namespace ? [o.metadata.namespace] : []));
    this.addIndex(OWNER_UID_INDEX, (o) => (o.metadata.ownerReferences ?? []).map((r) => r.uid));
  }

  /** Adds an index; existing objects are indexed at once. */
  addIndex(name: string, fn: IndexFunc<T>): void {
    if (this.#indexers.has(name)) throw new Error(`index "${name}" already exists`);
    this.#indexers.set(name, fn);
    this.#indexes.set(name, new Map());
    for (const [key, obj] of this.#items) this.#indexOne(name, fn, key, obj);
  }

  hasIndex(name: string): boolean {
    return this.#indexers.has(name);
  }

  #indexOne(name: string, fn: IndexFunc<T>, key: string, obj: T): void {
    const index = this.#indexes.get(name)!;
    for (const value of fn(obj)) {
      const keys = index.get(value) ?? new Set<string>();
      index.set(value, keys);
      keys.add(key);
    }
  }

  #unindex(key: string, obj: T): void {
    for (const [name, fn] of this.#indexers) {
      const index = this.#indexes.get(name)!;
      for (const value of fn(obj)) {
        const keys = index.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(value);
      }
    }
  }

  get size(): number {
    return this.#items.size;
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  /** Inserts or replaces; returns the previous version. */
  upsert(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.#items.get(key);
    if (old) this.#unindex(key, old);
    deepFreeze(obj);
    this.#items.set(key, obj);
    for (const [name, fn] of this.#indexers) this.#indexOne(name, fn, key, obj);
    return old;
  }

  delete(key: string): T | undefined {
    const old = this.#items.get(key);
    if (!old) return undefined;
    this.#unindex(key, old);
    this.#items.delete(key);
    return old;
  }

  /** Every object, or those in one namespace. */
  values(namespace?: string): T[] {
    if (namespace === undefined) return [...this.#items.values()];
    return this.byIndex(NAMESPACE_INDEX, namespace);
  }

  byIndex(name: string, value: string): T[] {
    const index = this.#indexes.get(name);
    if (!index) throw new Error(`no index "${name}": register it with indexField before the cache starts`);
    return [...(index.get(value) ?? [])].map((k) => this.#items.get(k)!);
  }

  /** Objects matching a namespace, a label selector and index lookups (all optional). */
  list(options: { namespace?: string; labelSelector?: string; fields?: Record<string, string> } = {}): T[] {
    let candidates: T[] | undefined;
    for (const [field, value] of Object.entries(options.fields ?? {})) {
      const hits = this.byIndex(field, value);
      candidates = candidates ? candidates.filter((c) => hits.includes(c)) : hits;
    }
    candidates ??= this.values(options.namespace);
    if (options.namespace !== undefined)
      candidates = candidates.filter((c) => c.metadata.namespace === options.namespace);
    if (options.labelSelector) {
      const selector = parseLabelSelector(options.labelSelector);
      candidates = candidates.filter((c) => selector.matches(c.metadata.labels));
    }
    return candidates;
  }
}
