import { isRecord } from '../is-record.js';

/**
 * Server-side apply field sets (`fieldsV1` of a managedFields entry) are pure structure — every value is
 * another set, `{}` at the leaves — and one manager applying one kind writes nearly the same tree into each
 * object: a cached Deployment's set is dozens of small objects, half of the object's heap, alike in all of
 * them but for the owner reference's UID. Sharing equal subtrees keeps one copy of what they have in common.
 */

/** A subtree the table keeps, and the id its parents' signatures name it by. */
interface Canonical {
  readonly node: object;
  readonly id: number;
}

export interface FieldSetTableOptions {
  /**
   * Subtrees remembered at most. The table is dropped whole when full: subtrees unique to one object (its
   * owner's UID) pass through it too, so a bound, not a weak table, keeps it from growing with the cache.
   * Subtrees already shared stay shared; after a drop the next objects share new copies.
   * @default 8192
   */
  readonly maxEntries?: number;
}

/** Hash-conses field sets: equal subtrees come back as one frozen object. */
export class FieldSetTable {
  readonly #maxEntries: number;
  /** By signature: each key, length-prefixed, and the id of its child, `<length>:<key><id>,…`. */
  readonly #canonical = new Map<string, Canonical>();
  /** Ids are never reused, so a signature naming a subtree from before a drop cannot match another. */
  #nextId = 0;

  constructor(options: FieldSetTableOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 8192;
  }

  /** Subtrees remembered now (for tests and diagnostics). */
  get size(): number {
    return this.#canonical.size;
  }

  /**
   * `set` with every subtree replaced by the table's equal one, frozen; the same JSON as `set`. Works in
   * place: `set` must be the caller's own (a freshly decoded object). What is not a field set (an array, a
   * scalar, a frozen object someone else owns) comes back unchanged.
   */
  share<T>(set: T): T {
    if (!isRecord(set) || Object.isFrozen(set)) return set;
    return this.#share(set).node as T;
  }

  #share(node: Record<string, unknown>): Canonical {
    let signature = '';
    for (const key of Object.keys(node)) {
      const child = node[key];
      let id: number;
      if (isRecord(child) && !Object.isFrozen(child)) {
        const shared = this.#share(child);
        if (shared.node !== child) node[key] = shared.node;
        id = shared.id;
      } else {
        // Not a field set (malformed, or frozen by another owner): kept, and the node made unique by it.
        id = this.#nextId++;
      }
      signature += `${key.length}:${key}${id},`;
    }
    const known = this.#canonical.get(signature);
    if (known) return known;
    const canonical: Canonical = { node: Object.freeze(node), id: this.#nextId++ };
    if (this.#canonical.size >= this.#maxEntries) this.#canonical.clear();
    this.#canonical.set(signature, canonical);
    return canonical;
  }
}
