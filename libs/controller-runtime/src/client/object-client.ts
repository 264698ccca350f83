import type { CacheListOptions } from '../cache/informer-cache.js';
import type { KubeObject, Stored } from '../object.js';
import type {
  ApplyOptions,
  DeleteOptions,
  ObjectList,
  PatchType,
  Reader,
  TypeRef,
  WriteOptions,
} from './client.js';

/** One object of a kind: `{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'settings' }`. */
export type ObjectRef = TypeRef & { name: string; namespace?: string };

/** Options of `patch`: write options, and `subresource: 'status'` to patch the status subresource. */
export type PatchOptions = WriteOptions & { subresource?: 'status' };

/** Options of `apply`: the field manager defaults to the client's own, `force` to true. */
export type ClientApplyOptions = Partial<ApplyOptions> & { subresource?: 'status' };

/**
 * What reconcilers need of a client: the public methods of the manager's `Client`, as an interface that both
 * `Client` and the in-memory `FakeClient` implement. Write reconcilers against `ObjectClient` (rather than
 * the `Client` class) so unit tests can hand them a `FakeClient`.
 */
export interface ObjectClient extends Reader {
  /** The field manager writes are recorded under. */
  readonly fieldManager: string;

  /** Reads one object; fails with 404 NotFound (`isNotFound`) when it does not exist. */
  get<T extends KubeObject>(type: TypeRef, name: string, namespace?: string): Promise<Stored<T>>;

  /** Lists objects of a kind, by namespace, label selector and registered indexes (`matchingFields`). */
  list<T extends KubeObject>(type: TypeRef, options?: CacheListOptions): Promise<ObjectList<Stored<T>>>;

  /**
   * Creates `obj`; fails with 409 AlreadyExists (`isAlreadyExists`) when it exists. The answer to a dry run
   * was never stored: it has no resourceVersion, whatever its type says.
   */
  create<T extends KubeObject>(obj: T, options?: WriteOptions): Promise<Stored<T>>;

  /** Replaces `obj`; fails with 409 Conflict (`isConflict`) when its resourceVersion is stale. */
  update<T extends KubeObject>(obj: T, options?: WriteOptions): Promise<Stored<T>>;

  /** Replaces the status subresource of `obj`. */
  updateStatus<T extends KubeObject>(obj: T, options?: WriteOptions): Promise<Stored<T>>;

  /** Patches an object (JSON merge patch by default), or its status with `{ subresource: 'status' }`. */
  patch<T extends KubeObject>(
    target: ObjectRef,
    patch: unknown,
    type?: PatchType,
    options?: PatchOptions,
  ): Promise<Stored<T>>;

  /** Server-side apply of the fields in `obj`, creating the object when missing. */
  apply<T extends KubeObject>(obj: T, options?: ClientApplyOptions): Promise<Stored<T>>;

  /** Deletes an object (an object with finalizers is only marked for deletion). */
  delete(target: ObjectRef, options?: DeleteOptions): Promise<void>;
}
