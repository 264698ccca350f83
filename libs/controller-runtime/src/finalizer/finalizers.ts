import type { KubeObject } from '../object.js';

/** Whether `obj` carries the finalizer `name` (controllerutil `ContainsFinalizer`). */
export function containsFinalizer(obj: KubeObject, name: string): boolean {
  return obj.metadata.finalizers?.includes(name) ?? false;
}

/**
 * Adds the finalizer `name` to `obj` unless present (controllerutil `AddFinalizer`). Sets
 * `obj.metadata.finalizers` to a new array, so a shallow copy of a cached object is enough.
 *
 * @returns whether `obj` changed.
 */
export function addFinalizer(obj: KubeObject, name: string): boolean {
  if (containsFinalizer(obj, name)) return false;
  obj.metadata.finalizers = [...(obj.metadata.finalizers ?? []), name];
  return true;
}

/**
 * Removes every occurrence of the finalizer `name` from `obj` (controllerutil `RemoveFinalizer`). Sets
 * `obj.metadata.finalizers` to a new array, so a shallow copy of a cached object is enough.
 *
 * @returns whether `obj` changed.
 */
export function removeFinalizer(obj: KubeObject, name: string): boolean {
  if (!containsFinalizer(obj, name)) return false;
  obj.metadata.finalizers = (obj.metadata.finalizers ?? []).filter((f) => f !== name);
  return true;
}
