import type { Client } from '../client/cached-client.js';
import { ignoreNotFound } from '../client/errors.js';
import type { KubeObject } from '../object.js';
import type { FinalizerOps } from './run-finalizer.js';

function target(obj: KubeObject) {
  return {
    apiVersion: obj.apiVersion!,
    kind: obj.kind!,
    name: obj.metadata.name!,
    namespace: obj.metadata.namespace,
  };
}

/**
 * Finalizer writes through a client: a JSON merge patch with the full finalizer list and the object's
 * resourceVersion, so a concurrent change fails with 409 (retried by the controller) instead of dropping
 * another controller's finalizer. Removing it from an object already gone succeeds: the object took its
 * finalizers with it (a reconcile from a cache that has not yet seen the deletion, e.g. woken by an owned
 * object's event that came first, is done rather than failed and retried until the cache catches up).
 */
export function clientFinalizerOps<T extends KubeObject>(client: Pick<Client, 'patch'>): FinalizerOps<T> {
  const write = (obj: T, finalizers: string[]) =>
    client.patch<T>(
      target(obj),
      { metadata: { finalizers, resourceVersion: obj.metadata.resourceVersion } },
      'merge',
    );
  return {
    addFinalizer: (obj, finalizers) => write(obj, finalizers),
    removeFinalizer: async (obj, finalizers) => {
      await ignoreNotFound(write(obj, finalizers));
    },
  };
}
