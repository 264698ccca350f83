import type { KubeObject } from '../object.js';

/**
 * How `runWithFinalizer` writes finalizers. The runtime's (`clientFinalizerOps`) fail with a conflict when the
 * list changed since it was read, instead of dropping someone else's finalizer.
 */
export interface FinalizerOps<T extends KubeObject> {
  /** Writes `finalizers` (the full new list) to `obj`; resolves to the updated object. */
  addFinalizer(obj: T, finalizers: string[]): Promise<T>;
  /** Writes `finalizers` (the full list left after removal) to `obj`. */
  removeFinalizer(obj: T, finalizers: string[]): Promise<void>;
}

/** What the object's controller does: `apply` while it lives, `cleanup` once it is being deleted. */
export interface FinalizerHandlers<T extends KubeObject, R> {
  /** Reconciles a live object; runs only once the finalizer is on the object. */
  apply(obj: T): Promise<R>;
  /** Releases what the object holds; the finalizer is removed only when this resolves. */
  cleanup(obj: T): Promise<R>;
}

/** Adding the finalizer failed; `apply` did not run. */
export class FinalizerAddError extends Error {
  readonly code = 'FINALIZER_ADD_FAILED';
  constructor(
    readonly finalizer: string,
    options?: ErrorOptions,
  ) {
    super(`failed to add finalizer ${finalizer}: ${messageOf(options?.cause)}`, options);
    this.name = 'FinalizerAddError';
  }
}

/** `cleanup` failed; the finalizer stays, so the next reconcile retries. */
export class FinalizerCleanupError extends Error {
  readonly code = 'FINALIZER_CLEANUP_FAILED';
  constructor(
    readonly finalizer: string,
    options?: ErrorOptions,
  ) {
    super(`cleanup for finalizer ${finalizer} failed: ${messageOf(options?.cause)}`, options);
    this.name = 'FinalizerCleanupError';
  }
}

/** `cleanup` succeeded but removing the finalizer failed; the next reconcile runs `cleanup` again. */
export class FinalizerRemoveError extends Error {
  readonly code = 'FINALIZER_REMOVE_FAILED';
  constructor(
    readonly finalizer: string,
    options?: ErrorOptions,
  ) {
    super(`failed to remove finalizer ${finalizer}: ${messageOf(options?.cause)}`, options);
    this.name = 'FinalizerRemoveError';
  }
}

function messageOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * Runs a reconcile guarded by the finalizer `name`, like kube-rs `finalizer()`:
 *
 * | object                     | finalizer | what happens                                                    |
 * |----------------------------|-----------|-----------------------------------------------------------------|
 * | live                       | missing   | add it (`ops.addFinalizer`), then `apply` the returned object    |
 * | live                       | present   | `apply`                                                         |
 * | being deleted              | present   | `cleanup`; when it resolves, remove it (`ops.removeFinalizer`)  |
 * | being deleted              | missing   | nothing; resolves to `undefined`                                |
 *
 * Errors from `apply` propagate unchanged. A failed `cleanup` rejects with `FinalizerCleanupError` and leaves the
 * finalizer in place, so the object stays until a later reconcile cleans up successfully.
 *
 * @returns what `apply` or `cleanup` resolved to, or `undefined` when there was nothing to do.
 * @throws FinalizerAddError, FinalizerCleanupError, FinalizerRemoveError (each with `cause`).
 */
export async function runWithFinalizer<T extends KubeObject, R>(
  obj: T,
  name: string,
  ops: FinalizerOps<T>,
  handlers: FinalizerHandlers<T, R>,
): Promise<R | undefined> {
  const finalizers = obj.metadata.finalizers ?? [];
  const present = finalizers.includes(name);
  if (!obj.metadata.deletionTimestamp) {
    if (present) return handlers.apply(obj);
    let updated: T;
    try {
      updated = await ops.addFinalizer(obj, [...finalizers, name]);
    } catch (cause) {
      throw new FinalizerAddError(name, { cause });
    }
    return handlers.apply(updated);
  }
  if (!present) return undefined;

  let result: R;
  try {
    result = await handlers.cleanup(obj);
  } catch (cause) {
    throw new FinalizerCleanupError(name, { cause });
  }
  try {
    await ops.removeFinalizer(
      obj,
      finalizers.filter((f) => f !== name),
    );
  } catch (cause) {
    throw new FinalizerRemoveError(name, { cause });
  }
  return result;
}
