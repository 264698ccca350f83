import type { Kind, KubeObject, Stored } from '../object.js';
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

/**
 * What reconcilers need of a client, as controller-runtime's `client.Client`: implemented by the manager's
 * `CachedClient`, the direct `DirectClient` and the in-memory `FakeClient`. Write reconcilers against
 * `ObjectClient` (rather than a class) so unit tests can hand them a `FakeClient`.
 */
export interface ObjectClient extends Reader {
  /**
   * The field manager writes are recorded under when their options name none. Undefined: the server names
   * the manager after the client's user agent, and `apply` needs one in its options.
   */
  readonly fieldManager?: string;

  /** Reads one object; fails with 404 NotFound (`isNotFound`) when it does not exist. */
  get<T extends KubeObject>(type: Kind<T>, name: string, namespace?: string): Promise<Stored<T>>;

  /** Lists objects of a kind, by namespace, label selector and field values (`matchingFields`). */
  list<T extends KubeObject>(type: Kind<T>, options?: ListOptions): Promise<ObjectList<Stored<T>>>;

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
    target: ObjectRef<T>,
    patch: unknown,
    type?: PatchType,
    options?: PatchOptions,
  ): Promise<Stored<T>>;

  /** Server-side apply of the fields in `obj` (forced by default), creating the object when missing. */
  apply<T extends KubeObject>(obj: T, options?: ApplyOptions): Promise<Stored<T>>;

  /** Deletes an object (an object with finalizers is only marked for deletion). */
  delete(target: ObjectRef, options?: DeleteOptions): Promise<void>;
}
