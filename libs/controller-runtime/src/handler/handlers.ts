import type { Reader } from '../client/options.js';
import { groupOf, type Kind, type KubeObject, type Stored } from '../object.js';
import type { Request } from '../reconcile/reconcile.js';

/**
 * Turns an event's object (as the informer stored it) into the requests to reconcile. It gets a reader of the
 * manager's cache and may be async, to look objects up (`cache.list` with `matchingFields` on an index, as a
 * controller-runtime map function lists): the requests are then queued when the promise resolves; one that
 * rejects is logged and queues nothing.
 */
export type MapFunc<T extends KubeObject = KubeObject> = (
  obj: Stored<T>,
  cache: Reader,
) => readonly Request[] | Promise<readonly Request[]>;

/** The map functions here need no cache: a function of the object alone, which is a {@link MapFunc} too. */
type ObjectMap = (obj: Stored<KubeObject>) => readonly Request[];

/** Reconcile the object itself (the `for` kind). */
export function enqueueForObject(): ObjectMap {
  return (obj) => [{ namespace: obj.metadata.namespace, name: obj.metadata.name }];
}

/**
 * Reconcile the owner of the object (the `owns` kinds): by default only the controller owner of the given
 * kind, as controller-runtime's `EnqueueRequestForOwner(..., OnlyControllerOwner())`.
 */
export function enqueueForOwner(owner: Kind, { onlyController = true } = {}): ObjectMap {
  const group = groupOf(owner.apiVersion);
  return (obj) =>
    (obj.metadata.ownerReferences ?? [])
      .filter(
        // Match on group and kind, not version: an owner may be referenced at any served version. The group,
        // which takes parsing, is compared last: this runs for every event of an owned kind.
        (ref) =>
          ref.kind === owner.kind &&
          (!onlyController || ref.controller === true) &&
          groupOf(ref.apiVersion) === group,
      )
      .map((ref) => ({ namespace: obj.metadata.namespace, name: ref.name }));
}

/**
 * Reconcile the instance an object was made for, as its recommended labels name it: the one its
 * `app.kubernetes.io/instance` label names, in the object's namespace, when `app.kubernetes.io/managed-by` is
 * `managedBy`. For objects an owned object makes (the pods of a Deployment or StatefulSet), which carry no
 * owner reference to the instance.
 */
export function enqueueForInstanceLabel(managedBy: string): ObjectMap {
  return (obj) => {
    const labels = obj.metadata.labels ?? {};
    const instance = labels['app.kubernetes.io/instance'];
    return labels['app.kubernetes.io/managed-by'] === managedBy && instance
      ? [{ namespace: obj.metadata.namespace, name: instance }]
      : [];
  };
}

/** Reconcile whatever a function maps the object to (the `watches` kinds). */
export function enqueueFromMap<T extends KubeObject>(fn: MapFunc<T>): MapFunc<T> {
  return fn;
}
