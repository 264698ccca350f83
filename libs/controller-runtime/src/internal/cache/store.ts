import { type KubeObject, objectKey } from '../../object.js';
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

/** A lookup by namespace, label selector and registered indexes (all optional). */
export interface StoreListOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fields?: Readonly<Record<string, string>>;
}

/**
 * An informer's objects as its readers see them: lookups only. The informer alone writes to its store, from
 * its reflectors' lists and watch events and from the results of the manager's own writes.
 */
export interface StoreReader<T extends KubeObject> {
  readonly size: number;
  /** The object of a `namespace/name` key (`name` for a cluster-scoped kind). */
  get(key: string): T | undefined;
  /** Every object, or those in one namespace. */
  values(namespace?: string): T[];
  hasIndex(name: string): boolean;
  byIndex(name: string, value: string): T[];
  list(options?: StoreListOptions): T[];
}

/** A view of `store` that can read it and nothing else, whatever a caller casts it to. */
export function readOnlyStore<T extends KubeObject>(store: Store<T>): StoreReader<T> {
  return Object.freeze({
    get size() {
      return store.size;
    },
    get: (key: string) => store.get(key),
    values: (namespace?: string) => store.values(namespace),
    hasIndex: (name: string) => store.hasIndex(name),
    byIndex: (name: string, value: string) => store.byIndex(name, value),
    list: (options?: StoreListOptions) => store.list(options),
  });
}

/**
 * The objects of one informer, keyed `namespace/name`, with indexes. Stored objects are deep-frozen, so reads
 * hand them out without copying and no caller can change what another caller sees.
 *
 * A list by label selector looks its `key=value` requirements up in label indexes, each built the first time a
 * selector names its label and kept from then on: a reconciler listing "the pods of this instance" reads those
 * pods, not every pod of the namespace, so a fleet of N costs N lookups rather than N².
 */
export class Store<T extends KubeObject> implements StoreReader<T> {
  readonly #items = new Map<string, T>();
  readonly #indexers = new Map<string, IndexFunc<T>>();
  readonly #indexes = new Map<string, Map<string, Set<string>>>();
  /** Label key → label value → object keys, for the labels selectors have named. */
  readonly #labelIndexes = new Map<string, Map<string, Set<string>>>();

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
    for (const value of fn(obj)) addTo(index, value, key);
  }

  #unindex(key: string, obj: T): void {
    for (const [name, fn] of this.#indexers) {
      const index = this.#indexes.get(name)!;
      for (const value of fn(obj)) removeFrom(index, value, key);
    }
    const labels = obj.metadata.labels;
    if (!labels) return;
    for (const [label, index] of this.#labelIndexes) {
      if (Object.hasOwn(labels, label)) removeFrom(index, labels[label]!, key);
    }
  }

  #labelIndexOne(key: string, obj: T): void {
    const labels = obj.metadata.labels;
    if (!labels) return;
    for (const [label, index] of this.#labelIndexes) {
      if (Object.hasOwn(labels, label)) addTo(index, labels[label]!, key);
    }
  }

  /** The keys of objects whose label `label` is `value`, indexing that label first if no selector named it yet. */
  #withLabel(label: string, value: string): ReadonlySet<string> {
    let index = this.#labelIndexes.get(label);
    if (!index) {
      index = new Map();
      this.#labelIndexes.set(label, index);
      for (const [key, obj] of this.#items) {
        const labels = obj.metadata.labels;
        if (labels && Object.hasOwn(labels, label)) addTo(index, labels[label]!, key);
      }
    }
    return index.get(value) ?? NO_KEYS;
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
    this.#labelIndexOne(key, obj);
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
  list(options: StoreListOptions = {}): T[] {
    const selector = options.labelSelector ? parseLabelSelector(options.labelSelector) : undefined;
    // The fewest candidates any index gives: each field lookup, each `key=value` of the selector.
    let keys: ReadonlySet<string> | undefined;
    for (const [field, value] of Object.entries(options.fields ?? {})) {
      const index = this.#indexes.get(field);
      if (!index) throw new Error(`no index "${field}": register it with indexField before the cache starts`);
      keys = smaller(keys, index.get(value) ?? NO_KEYS);
    }
    for (const [label, value] of selector?.equalities ?? [])
      keys = smaller(keys, this.#withLabel(label, value));
    let candidates: T[];
    if (keys) {
      candidates = [...keys].map((k) => this.#items.get(k)!);
      if (options.namespace !== undefined)
        candidates = candidates.filter((c) => c.metadata.namespace === options.namespace);
    } else {
      candidates = this.values(options.namespace);
    }
    // Every condition is checked on what the smallest index gave.
    for (const [field, value] of Object.entries(options.fields ?? {})) {
      const index = this.#indexes.get(field)!;
      candidates = candidates.filter((c) => index.get(value)?.has(objectKey(c)));
    }
    return selector ? candidates.filter((c) => selector.matches(c.metadata.labels)) : candidates;
  }
}

const NO_KEYS: ReadonlySet<string> = new Set();

function smaller(a: ReadonlySet<string> | undefined, b: ReadonlySet<string>): ReadonlySet<string> {
  return a === undefined || b.size < a.size ? b : a;
}

function addTo(index: Map<string, Set<string>>, value: string, key: string): void {
  const keys = index.get(value);
  if (keys) keys.add(key);
  else index.set(value, new Set([key]));
}

function removeFrom(index: Map<string, Set<string>>, value: string, key: string): void {
  const keys = index.get(value);
  keys?.delete(key);
  if (keys?.size === 0) index.delete(value);
}
