import type { DirectClient } from '../../client/direct-client.js';
import type { ListOptions, ObjectList, Reader } from '../../client/options.js';
import { ApiError } from '../../errors/errors.js';
import type { Kind, KubeObject, Stored } from '../../object.js';
import { retryTransient, type TransientFailure } from '../retry/transient-retry.js';
import { NoKindMatchError, type ResourceMapping } from '../transport/resource-mapper.js';
import { type Informer, type InformerScope, SharedInformer, stripManagedFields } from './informer.js';
import { parseLabelSelector } from './label-selector.js';
import type { IndexFunc } from './store.js';

/** What the cache holds of a kind, like an entry of controller-runtime's `ByObject`. */
export interface ObjectCacheOptions<T extends KubeObject = KubeObject> {
  /** Overrides the cache-wide namespaces for this kind. */
  readonly namespaces?: readonly string[];
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly transform?: (obj: Stored<T>) => Stored<T>;
}

/** The cache settings of one kind, keyed by its token. */
export interface KindCacheOptions {
  readonly kind: Kind;
  readonly options: ObjectCacheOptions;
}

/** Cache settings by kind (`cache.byObject`), built with {@link cacheOptionsFor}; a later entry of a kind wins. */
export type ByObject = readonly KindCacheOptions[];

/** The objects a kind token stands for; a union for a list of tokens. */
type KindObject<K> = K extends Kind<infer T> ? T : never;

export interface InformerCacheOptions {
  readonly client: DirectClient;
  /** Namespaces to cache; empty for all (see `watchNamespacesFromEnv`). */
  readonly namespaces: readonly string[];
  /** Settings per kind. */
  readonly byObject?: ByObject;
  /** @default stripManagedFields */
  readonly defaultTransform?: (obj: Stored<KubeObject>) => Stored<KubeObject>;
  readonly inactivityTimeoutMs?: number;
  readonly onError?: (error: Error, type: Kind) => void;
  /** Called before each new attempt at discovering a kind after a transient failure (the API server is not ready). */
  readonly onRetry?: (failure: TransientFailure, type: Kind) => void;
  /**
   * Called when a write's result (see `observe`) lies in a watched namespace but outside its kind's label
   * selector: a controller that reads it from the cache will not find it, and may write it again on every
   * reconcile. Usually the object lacks the labels the cache selects by.
   */
  readonly onUnselectedWrite?: (obj: Stored<KubeObject>, type: Kind, labelSelector: string) => void;
}

/** The cache was asked for a namespace it does not watch. */
export class NamespaceNotCachedError extends Error {
  readonly code = 'RUNTIME_NAMESPACE_NOT_CACHED';
}

/** An informer cannot start: discovering its kind failed for good (401, 403, …); the message names the kind. */
export class InformerStartError extends Error {
  readonly code = 'RUNTIME_INFORMER_START';
}

/** The cache did not sync within the timeout. */
export class CacheSyncTimeoutError extends Error {
  readonly code = 'RUNTIME_CACHE_NOT_SYNCED';
}

const typeKey = (t: Kind) => `${t.apiVersion}/${t.kind}`;

/**
 * `byObject` entries that give each of `kinds` the same settings, its `transform` typed by their objects:
 * `byObject: cacheOptionsFor([DEPLOYMENT, SERVICE], { labelSelector: 'app.kubernetes.io/managed-by=me' })`.
 */
export function cacheOptionsFor<const K extends readonly Kind[]>(
  kinds: K,
  options: ObjectCacheOptions<KindObject<K[number]>>,
): KindCacheOptions[] {
  // The cache hands a transform only objects of the kinds it is listed under, which is what its type says.
  const erased = options as unknown as ObjectCacheOptions;
  return kinds.map((kind) => ({ kind, options: erased }));
}

/** The settings of each kind by `apiVersion/Kind`, a later entry of a kind replacing an earlier one. */
function settingsByKind(byObject: ByObject | undefined): ReadonlyMap<string, ObjectCacheOptions> {
  return new Map((byObject ?? []).map((entry) => [typeKey(entry.kind), entry.options]));
}

/**
 * Whether a cache with these `byObject` settings holds `obj` (its kind's label selector, if any, matches
 * its labels): what a test of an operator checks of every object it writes, since an object its own cache
 * cannot see is written again on every reconcile.
 */
export function cacheSelects(
  byObject: ByObject,
  obj: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>,
): boolean {
  const { apiVersion, kind } = obj;
  if (!apiVersion || !kind) throw new TypeError('cacheSelects: the object has no apiVersion or kind');
  const selector = settingsByKind(byObject).get(typeKey({ apiVersion, kind }))?.labelSelector;
  return !selector || parseLabelSelector(selector).matches(obj.metadata.labels);
}

/**
 * The manager's cache as operator code sees it: reads, indexes and informers with read-only stores; nothing
 * that writes to it (its informers' reflectors do, and the manager's client with what its writes return).
 */
export interface Cache extends Reader {
  /** The shared informer of a kind, created on first request. */
  informerFor<T extends KubeObject>(type: Kind<T>): Promise<Informer<Stored<T>>>;
  /** Registers an index for `matchingFields` lists, before or after start. */
  indexField<T extends KubeObject>(type: Kind<T>, name: string, fn: IndexFunc<Stored<T>>): Promise<void>;
  /** Waits until every informer created so far has synced. */
  waitForCacheSync(timeoutMs?: number): Promise<void>;
  /** True when every informer has synced. */
  hasSynced(): Promise<boolean>;
}

/** A cache of one's own, outside a manager: its owner starts it, and stops it through the signal. */
export interface StandaloneCache extends Cache {
  /** Starts every informer created so far and any created later, until `signal` aborts. */
  start(signal: AbortSignal): void;
  /** Resolves when every informer's reflectors have stopped. */
  stopped(): Promise<void>;
}

/** A shared informer cache of one's own, reading through `options.client`, for code that runs no manager. */
export function newCache(options: InformerCacheOptions): StandaloneCache {
  return new InformerCache(options);
}

/**
 * Shared informers, one per kind and scope, serving every controller and the cached client. Reads wait for
 * the kind's informer to sync (starting it on first use, as controller-runtime does) and return deep-frozen
 * objects: copy before changing (`structuredClone`).
 */
export class InformerCache implements Cache {
  readonly #o: InformerCacheOptions;
  readonly #byKind: ReadonlyMap<string, ObjectCacheOptions>;
  readonly #informers = new Map<string, Promise<SharedInformer<Stored<KubeObject>>>>();
  /** Indexes by kind (`apiVersion/Kind`) and name, given to the kind's informer whenever it is created. */
  readonly #indexes = new Map<string, Map<string, IndexFunc<Stored<KubeObject>>>>();
  #signal: AbortSignal | undefined;

  constructor(options: InformerCacheOptions) {
    this.#o = options;
    this.#byKind = settingsByKind(options.byObject);
  }

  #scope(type: Kind): InformerScope {
    const specific = this.#byKind.get(typeKey(type));
    return {
      namespaces: specific?.namespaces ?? this.#o.namespaces,
      labelSelector: specific?.labelSelector,
      fieldSelector: specific?.fieldSelector,
    };
  }

  /** The shared informer of a kind, created on first request and running once the cache has started. */
  informerFor<T extends KubeObject>(type: Kind<T>): Promise<SharedInformer<Stored<T>>> {
    const key = typeKey(type);
    let informer = this.#informers.get(key);
    if (!informer) {
      informer = (async () => {
        const mapping = await this.#mapping(type);
        const transform = this.#byKind.get(key)?.transform ?? this.#o.defaultTransform ?? stripManagedFields;
        const created = new SharedInformer<Stored<KubeObject>>({
          client: this.#o.client,
          type,
          scope: this.#scope(type),
          namespaced: mapping.namespaced,
          transform,
          inactivityTimeoutMs: this.#o.inactivityTimeoutMs,
          onError: (error) => this.#o.onError?.(error, type),
          onUnselected: (obj) =>
            this.#o.onUnselectedWrite?.(obj, type, this.#scope(type).labelSelector ?? ''),
        });
        for (const [name, fn] of this.#indexes.get(key) ?? []) created.addIndex(name, fn);
        if (this.#signal) created.run(this.#signal);
        return created;
      })();
      informer.catch(() => this.#informers.delete(key));
      this.#informers.set(key, informer);
    }
    return informer as unknown as Promise<SharedInformer<Stored<T>>>;
  }

  /**
   * Where a kind lives. Once the cache runs, transient failures (the API server starting, overloaded or
   * restarting) are retried with back-off until the cache stops; a kind the server does not serve fails with
   * NoKindMatchError, any other failure with an InformerStartError naming the kind.
   */
  async #mapping(type: Kind): Promise<ResourceMapping> {
    const map = () => this.#o.client.mapping(type.apiVersion, type.kind);
    const signal = this.#signal;
    try {
      if (!signal) return await map();
      return await retryTransient(`discovery of ${type.kind} (${type.apiVersion})`, map, {
        signal,
        onRetry: (failure) => this.#o.onRetry?.(failure, type),
      });
    } catch (error) {
      if (error instanceof NoKindMatchError) throw error;
      throw new InformerStartError(
        `cannot watch ${type.kind} (${type.apiVersion}): ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  }

  /**
   * Registers an index on a kind's informer, before or after start. It is kept with the cache and given to the
   * kind's informer whenever that is created (again after a failed discovery), so a registration made at setup
   * holds even when the kind is not served yet; the promise resolves once an existing informer has it, and
   * never rejects.
   */
  async indexField<T extends KubeObject>(
    type: Kind<T>,
    name: string,
    fn: IndexFunc<Stored<T>>,
  ): Promise<void> {
    const key = typeKey(type);
    const indexes = this.#indexes.get(key) ?? new Map<string, IndexFunc<Stored<KubeObject>>>();
    indexes.set(name, fn as IndexFunc<Stored<KubeObject>>);
    this.#indexes.set(key, indexes);
    const informer = await this.#informers.get(key)?.catch(() => undefined);
    informer?.addIndex(name, fn as IndexFunc<Stored<KubeObject>>);
  }

  /** Starts every informer created so far and any created later. */
  start(signal: AbortSignal): void {
    this.#signal = signal;
    // An informer whose discovery failed has already rejected to whoever asked for it; it has nothing to run.
    for (const informer of this.#informers.values())
      informer.then(
        (i) => i.run(signal),
        () => {},
      );
  }

  get started(): boolean {
    return this.#signal !== undefined;
  }

  /** Waits until every informer created so far has synced. */
  async waitForCacheSync(timeoutMs = 120_000): Promise<void> {
    const all = Promise.all([...this.#informers.values()].map(async (i) => (await i).waitForSync()));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new CacheSyncTimeoutError(`caches did not sync within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([all, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * True when every informer has synced (for the readiness probe). An informer still waiting for its kind's
   * discovery (the API server is not ready) has not, and is not waited for.
   */
  async hasSynced(): Promise<boolean> {
    const pending = Symbol('pending');
    const informers = await Promise.all(
      [...this.#informers.values()].map((i) => Promise.race([i, Promise.resolve(pending)])),
    );
    return informers.every((i) => i !== pending && i.hasSynced);
  }

  async #ready<T extends KubeObject>(type: Kind<T>, namespace?: string): Promise<SharedInformer<Stored<T>>> {
    const scope = this.#scope(type);
    if (namespace && scope.namespaces.length > 0 && !scope.namespaces.includes(namespace)) {
      const mapping = await this.#o.client.mapping(type.apiVersion, type.kind);
      if (mapping.namespaced) {
        throw new NamespaceNotCachedError(
          `unable to read ${type.kind} in namespace "${namespace}": the cache only watches ${scope.namespaces.join(', ')}`,
        );
      }
    }
    const informer = await this.informerFor<T>(type);
    if (!this.#signal) throw new CacheSyncTimeoutError('the cache has not been started');
    await informer.waitForSync();
    return informer;
  }

  async get<T extends KubeObject>(type: Kind<T>, name: string, namespace?: string): Promise<Stored<T>> {
    const informer = await this.#ready(type, namespace);
    const found = informer.store.get(namespace ? `${namespace}/${name}` : name);
    if (!found) throw cacheMiss(type, name);
    return found;
  }

  /**
   * Lists from the informer's store by namespace, label selector and registered indexes (`matchingFields`,
   * e.g. `{ 'spec.nodeName': 'node-1' }`).
   */
  async list<T extends KubeObject>(type: Kind<T>, options: ListOptions = {}): Promise<ObjectList<Stored<T>>> {
    const informer = await this.#ready(type, options.namespace);
    const items = informer.store.list({
      namespace: options.namespace,
      labelSelector: options.labelSelector,
      fields: options.matchingFields,
    });
    return { apiVersion: type.apiVersion, kind: `${type.kind}List`, metadata: {}, items };
  }

  /** Feeds an object a write returned to its kind's informer, if there is one (see SharedInformer.observe). */
  observe(obj: Stored<KubeObject>): void {
    if (!obj?.apiVersion || !obj.kind || !obj.metadata) return;
    const informer = this.#informers.get(typeKey({ apiVersion: obj.apiVersion, kind: obj.kind }));
    void informer?.then((i) => i.observe(obj)).catch(() => {});
  }

  /** Resolves when every informer's reflectors have stopped. */
  async stopped(): Promise<void> {
    await Promise.all(
      [...this.#informers.values()].map(async (i) => (await i.catch(() => undefined))?.stopped()),
    );
  }
}

/**
 * The NotFound of a cache read, made without a stack trace: reconcilers read objects that do not exist (yet) on
 * every pass and drop the error (`ignoreNotFound`), and capturing the async stack of each miss took about 2 % of
 * an operator's CPU in `bench:converge`.
 */
function cacheMiss(type: Kind, name: string): ApiError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new ApiError(404, 'NotFound', `${type.kind} "${name}" not found`, 'GET', `cache:${typeKey(type)}`);
  } finally {
    Error.stackTraceLimit = limit;
  }
}
