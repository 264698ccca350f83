import type { Kind, KubeObject, Stored } from '../object.js';
import type { DirectClient } from './direct-client.js';
import type { ObjectClient } from './object-client.js';
import type {
  ApplyOptions,
  DeleteOptions,
  ListOptions,
  ObjectList,
  ObjectRef,
  PatchOptions,
  PatchType,
  Reader,
  WriteOptions,
} from './options.js';

/** What the client needs of the informer cache: its reads, and to be told what a write returned. */
interface ClientCache extends Reader {
  observe(obj: Stored<KubeObject>): void;
}
/** What the client needs of the API client. */
type ClientApi = Pick<DirectClient, 'create' | 'update' | 'updateStatus' | 'patch' | 'apply' | 'delete'>;

/**
 * The client controllers use, as controller-runtime's default client: reads from the shared informer cache
 * (deep-frozen objects, no API traffic), writes straight to the API server with this manager's field
 * manager. For a read that must see the server's latest state, use the manager's `apiClient`.
 */
export class CachedClient implements ObjectClient {
  readonly #cache: ClientCache;
  readonly #api: ClientApi;
  readonly fieldManager: string;

  constructor(cache: ClientCache, api: ClientApi, fieldManager: string) {
    this.#cache = cache;
    this.#api = api;
    this.fieldManager = fieldManager;
  }

  get<T extends KubeObject>(type: Kind<T>, name: string, namespace?: string): Promise<Stored<T>> {
    return this.#cache.get<T>(type, name, namespace);
  }

  list<T extends KubeObject>(type: Kind<T>, options?: ListOptions): Promise<ObjectList<Stored<T>>> {
    return this.#cache.list<T>(type, options);
  }

  #opts(options?: WriteOptions): WriteOptions {
    return { fieldManager: this.fieldManager, ...options };
  }

  /**
   * Hands what the server answered to the cache, so our next read sees our own write. A dry run's answer is
   * what the object would have become, not what is stored, so it stays out.
   */
  async #written<T extends KubeObject>(
    write: Promise<Stored<T>>,
    options?: { dryRun?: boolean },
  ): Promise<Stored<T>> {
    const obj = await write;
    if (options?.dryRun || !(obj as { metadata?: unknown })?.metadata) return obj;
    this.#cache.observe(obj);
    return obj;
  }

  create<T extends KubeObject>(obj: T, options?: WriteOptions): Promise<Stored<T>> {
    return this.#written(this.#api.create(obj, this.#opts(options)), options);
  }

  update<T extends KubeObject>(obj: T, options?: WriteOptions): Promise<Stored<T>> {
    return this.#written(this.#api.update(obj, this.#opts(options)), options);
  }

  updateStatus<T extends KubeObject>(obj: T, options?: WriteOptions): Promise<Stored<T>> {
    return this.#written(this.#api.updateStatus(obj, this.#opts(options)), options);
  }

  patch<T extends KubeObject>(
    target: ObjectRef<T>,
    patch: unknown,
    type: PatchType = 'merge',
    options: PatchOptions = {},
  ): Promise<Stored<T>> {
    return this.#written(this.#api.patch<T>(target, patch, type, this.#opts(options)), options);
  }

  /** Server-side apply with this manager's field manager (forced by default). */
  apply<T extends KubeObject>(obj: T, options: ApplyOptions = {}): Promise<Stored<T>> {
    return this.#written(this.#api.apply(obj, { fieldManager: this.fieldManager, ...options }));
  }

  delete(target: ObjectRef, options?: DeleteOptions): Promise<void> {
    return this.#api.delete(target, options);
  }
}
