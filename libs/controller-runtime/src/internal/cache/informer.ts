import type { DirectClient } from '../../client/direct-client.js';
import { type Kind, type KubeObject, objectKey } from '../../object.js';
import { copyJson } from '../json-copy.js';
import { FieldSetTable } from './field-sets.js';
import { type LabelSelector, parseLabelSelector } from './label-selector.js';
import { Reflector, type ReflectorStats } from './reflector.js';
import { type IndexFunc, readOnlyStore, Store, type StoreReader } from './store.js';

/**
 * Resource versions are etcd revisions: compare them as integers when they look like integers (decimal digits
 * without leading zeros: the longer is larger, and of equal length the string order is the numeric one).
 */
function isNewer(candidate: string | undefined, current: string | undefined): boolean {
  if (!candidate || !current) return Boolean(candidate);
  if (REVISION.test(candidate) && REVISION.test(current)) {
    return candidate.length !== current.length ? candidate.length > current.length : candidate > current;
  }
  return candidate !== current;
}
const REVISION = /^(0|[1-9]\d*)$/;

/** How many recent deletions an informer remembers against stale write results (see `observe`). */
const MAX_TOMBSTONES = 4096;

/** What an informer tells its listeners. Handlers must be quick: controllers only enqueue keys here. */
export interface InformerHandler<T extends KubeObject> {
  /** `initial`: part of the first list (controllers give these a lower priority than live events). */
  onAdd?(obj: T, initial: boolean): void;
  onUpdate?(oldObj: T, newObj: T): void;
  /** `stateUnknown`: the delete was missed while disconnected and found by a relist; `obj` is the last known state. */
  onDelete?(obj: T, stateUnknown: boolean): void;
}

export interface InformerScope {
  /** Namespaces to watch; empty for all namespaces (and for cluster-scoped kinds). */
  readonly namespaces: readonly string[];
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export interface InformerOptions<T extends KubeObject> {
  readonly client: DirectClient;
  readonly type: Kind;
  readonly scope: InformerScope;
  readonly namespaced: boolean;
  readonly transform?: (obj: T) => T;
  readonly inactivityTimeoutMs?: number;
  readonly onError?: (error: Error) => void;
  /**
   * Called with a written object (see `observe`) of a watched namespace that the label selector leaves out:
   * the informer will never report it, so a controller that wrote it cannot see it.
   */
  readonly onUnselected?: (obj: T) => void;
}

/** One table for every informer of the process: kinds share subtrees too (`f:metadata`, `f:labels`). */
const appliedFieldSets = new FieldSetTable();

/**
 * Strips what controllers never read and what makes cached objects large: last-applied, and managedFields
 * but for server-side apply's own entries, which tell `applyIfChanged` the fields a controller applied
 * before (so it can tell when its next apply would remove one). Their field sets, alike across the objects
 * one controller applies, share their equal subtrees (frozen, as everything cached is).
 */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  const managed = obj.metadata.managedFields;
  if (managed) {
    const applied = managed.filter((entry) => (entry as { operation?: string }).operation === 'Apply');
    for (const entry of applied as { fieldsV1?: unknown }[]) {
      if (entry.fieldsV1 && !Object.isFrozen(entry)) entry.fieldsV1 = appliedFieldSets.share(entry.fieldsV1);
    }
    if (applied.length > 0) obj.metadata.managedFields = applied;
    else delete obj.metadata.managedFields;
  }
  const annotations = obj.metadata.annotations;
  if (annotations?.['kubectl.kubernetes.io/last-applied-configuration']) {
    delete annotations['kubectl.kubernetes.io/last-applied-configuration'];
  }
  return obj;
}

/** An informer as the cache hands it out: its read-only store, whether it has synced, and its listeners. */
export interface Informer<T extends KubeObject> {
  readonly type: Kind;
  readonly store: StoreReader<T>;
  /** True once the first list of every watched namespace is in the store. */
  readonly hasSynced: boolean;
  waitForSync(): Promise<void>;
  /** Until it has synced: the last failure of a first list (or of the watch after it), to say why it waits. */
  readonly lastSyncError?: Error;
  /** Per reflector: lists, watches, relists after 410 and failures. */
  readonly stats: ReflectorStats[];
  /** Adds a listener; objects the informer already has are replayed to it as initial adds. */
  addHandler(handler: InformerHandler<T>): void;
}

/**
 * One shared informer: a store kept current by one reflector per watched namespace, and the listeners that
 * want to hear about changes. A relist is diffed by UID against the store, so deletes (and delete-recreates)
 * that happened while disconnected still reach the listeners.
 */
export class SharedInformer<T extends KubeObject> implements Informer<T> {
  readonly #store = new Store<T>();
  /** The informer's objects, read-only: only the informer writes to them. */
  readonly store: StoreReader<T> = readOnlyStore(this.#store);
  readonly type: Kind;
  readonly #options: InformerOptions<T>;
  readonly #handlers: InformerHandler<T>[] = [];
  readonly #reflectors: Reflector<T>[] = [];
  readonly #pendingSync: Set<string>;
  /** Keys deleted recently, with the resourceVersion of their deletion. */
  readonly #tombstones = new Map<string, string>();
  readonly #selector: LabelSelector | undefined;
  readonly #synced: Promise<void>;
  #resolveSynced!: () => void;
  #running: Promise<unknown> | undefined;
  #lastSyncError: Error | undefined;

  constructor(options: InformerOptions<T>) {
    this.#options = options;
    this.type = options.type;
    this.#selector = options.scope.labelSelector
      ? parseLabelSelector(options.scope.labelSelector)
      : undefined;
    const namespaces =
      options.namespaced && options.scope.namespaces.length > 0 ? options.scope.namespaces : [undefined];
    this.#pendingSync = new Set(namespaces.map((n) => n ?? ''));
    this.#synced = new Promise((resolve) => {
      this.#resolveSynced = resolve;
    });
    for (const namespace of namespaces) {
      this.#reflectors.push(
        new Reflector<T>(
          {
            client: options.client,
            type: options.type,
            namespace,
            labelSelector: options.scope.labelSelector,
            fieldSelector: options.scope.fieldSelector,
            inactivityTimeoutMs: options.inactivityTimeoutMs,
            onError: (error) => {
              if (!this.hasSynced) this.#lastSyncError = error;
              options.onError?.(error);
            },
          },
          {
            replace: (items, ns, rv) => this.#replace(items, ns, rv),
            apply: (type, obj) => this.#apply(type, obj),
          },
        ),
      );
    }
  }

  /** True once every reflector has applied its first list. */
  get hasSynced(): boolean {
    return this.#pendingSync.size === 0;
  }

  get lastSyncError(): Error | undefined {
    return this.hasSynced ? undefined : this.#lastSyncError;
  }

  /** Resolves when {@link hasSynced}. */
  waitForSync(): Promise<void> {
    return this.#synced;
  }

  get stats(): ReflectorStats[] {
    return this.#reflectors.map((r) => r.stats);
  }

  /** Adds a listener; if the informer already has objects, they are replayed to it as initial adds. */
  addHandler(handler: InformerHandler<T>): void {
    this.#handlers.push(handler);
    for (const obj of this.store.values()) this.#safely(() => handler.onAdd?.(obj, true));
  }

  addIndex(name: string, fn: IndexFunc<T>): void {
    if (!this.#store.hasIndex(name)) this.#store.addIndex(name, fn);
  }

  /** Starts the reflectors (once); they run until `signal` aborts. */
  run(signal: AbortSignal): void {
    this.#running ??= Promise.all(this.#reflectors.map((r) => r.run(signal)));
  }

  /** Resolves when the reflectors have stopped (after their signal aborted). */
  async stopped(): Promise<void> {
    await this.#running;
  }

  #safely(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      // A listener's bug must neither stop the watch nor skip the store update.
      this.#options.onError?.(error as Error);
    }
  }

  #notify(fn: (h: InformerHandler<T>) => void): void {
    for (const h of this.#handlers) this.#safely(() => fn(h));
  }

  /**
   * Read-your-writes: the object a write returned goes into the store right away if it is newer than what the
   * store holds, so the next reconcile does not act on a stale copy and write again. The watch event for the
   * same version, when it arrives, is then recognised and skipped.
   */
  observe(obj: T): void {
    if (!this.hasSynced || !this.#inNamespaces(obj)) return;
    if (this.#selector && !this.#selector.matches(obj.metadata.labels)) {
      this.#options.onUnselected?.(obj);
      return;
    }
    const key = objectKey(obj);
    const old = this.store.get(key);
    if (old && !isNewer(obj.metadata.resourceVersion, old.metadata.resourceVersion)) return;
    // Deleted after this write: the write's result must not bring it back.
    const deletedAt = old ? undefined : this.#tombstones.get(key);
    if (deletedAt !== undefined && !isNewer(obj.metadata.resourceVersion, deletedAt)) return;
    // The caller keeps `obj`; the store gets a copy to transform and freeze.
    this.#upsert(this.#transform(copyJson(obj)), old);
  }

  #transform(obj: T): T {
    return this.#options.transform ? this.#options.transform(obj) : obj;
  }

  /** Whether the informer watches where `obj` lives (a kind with a field selector: never known locally). */
  #inNamespaces(obj: T): boolean {
    const { scope, namespaced } = this.#options;
    if (scope.fieldSelector) return false; // cannot evaluate field selectors locally
    return (
      !namespaced || scope.namespaces.length === 0 || scope.namespaces.includes(obj.metadata.namespace ?? '')
    );
  }

  /** Remembers that `key` was deleted at `resourceVersion` (or later), for {@link observe}. */
  #bury(key: string, resourceVersion: string | undefined): void {
    if (!resourceVersion) return;
    this.#tombstones.delete(key);
    this.#tombstones.set(key, resourceVersion);
    // Only writes in flight at the deletion need it; the oldest go first.
    if (this.#tombstones.size > MAX_TOMBSTONES) {
      const oldest = this.#tombstones.keys().next().value;
      if (oldest !== undefined) this.#tombstones.delete(oldest);
    }
  }

  #replace(items: T[], namespace: string | undefined, resourceVersion?: string): void {
    const initial = !this.hasSynced;
    const incoming = new Map(items.map((o) => [objectKey(o), o]));
    // Deletes first: anything we hold in this scope that is gone, or was replaced by a new object (new UID).
    for (const old of this.store.values(namespace)) {
      const key = objectKey(old);
      const next = incoming.get(key);
      if (!next || next.metadata.uid !== old.metadata.uid) {
        this.#store.delete(key);
        // Gone by the list's revision: a write that landed before it is no news.
        if (!next) this.#bury(key, resourceVersion);
        this.#notify((h) => h.onDelete?.(old, true));
      }
    }
    for (const [key, raw] of incoming) {
      const old = this.store.get(key);
      // Held already (a relist after a dropped watch finds most objects unchanged): not transformed again.
      if (old && old.metadata.resourceVersion === raw.metadata.resourceVersion) continue;
      const obj = this.#transform(raw);
      this.#store.upsert(obj);
      if (old) this.#notify((h) => h.onUpdate?.(old, obj));
      else this.#notify((h) => h.onAdd?.(obj, initial));
    }
    if (this.#pendingSync.delete(namespace ?? '') && this.#pendingSync.size === 0) this.#resolveSynced();
  }

  #apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', raw: T): void {
    const key = objectKey(raw);
    if (type === 'DELETED') {
      const old = this.#store.delete(key);
      this.#bury(key, raw.metadata.resourceVersion);
      this.#notify((h) => h.onDelete?.(old ?? this.#transform(raw), false));
      return;
    }
    const current = this.store.get(key);
    // Already seen through read-your-writes (or a duplicate or older event): nothing new to tell, and nothing
    // to transform (checked on the decoded event, before the transform's work).
    if (
      current &&
      !isNewer(raw.metadata.resourceVersion, current.metadata.resourceVersion) &&
      current.metadata.uid === raw.metadata.uid
    )
      return;
    this.#upsert(this.#transform(raw), current);
  }

  /** Stores `obj` (transformed) in place of `old`, the store's object under its key, and tells the listeners. */
  #upsert(obj: T, old: T | undefined): void {
    this.#store.upsert(obj);
    if (old && old.metadata.uid !== obj.metadata.uid) {
      this.#notify((h) => h.onDelete?.(old, true));
      this.#notify((h) => h.onAdd?.(obj, false));
    } else if (old) this.#notify((h) => h.onUpdate?.(old, obj));
    else this.#notify((h) => h.onAdd?.(obj, false));
  }
}
