import type { CachedClient } from '../client/cached-client.js';
import { ApiError, ignoreNotFound } from '../errors/errors.js';
import type { KubeObject, Stored } from '../object.js';
import type { FinalizerOps } from './run-finalizer.js';

function target(obj: Stored<KubeObject>) {
  return {
    // Objects the API server returns carry their apiVersion and kind (only list items lack them, and the
    // clients fill those in); the type leaves them optional for objects being written.
    apiVersion: obj.apiVersion!,
    kind: obj.kind!,
    name: obj.metadata.name,
    namespace: obj.metadata.namespace,
  };
}

/**
 * Finalizer writes through a client, each failing instead of dropping another controller's finalizer when the
 * list changed since it was read:
 * - adding is a JSON merge patch of the full list with the object's resourceVersion (409 on any change);
 * - removing is a JSON patch that tests the list as read, then replaces it. A write that left the list alone
 *   (typically the status the cleanup just wrote) does not fail it, so cleanup is not run twice. The API
 *   server answers a failed test with 422, which is reported as the conflict it is.
 * Removing it from an object already gone succeeds: the object took its finalizers with it (a reconcile from a
 * cache that has not yet seen the deletion, e.g. woken by an owned object's event that came first, is done
 * rather than failed and retried until the cache catches up).
 */
export function clientFinalizerOps<T extends KubeObject>(
  client: Pick<CachedClient, 'patch'>,
): FinalizerOps<Stored<T>> {
  return {
    addFinalizer: (obj, finalizers) =>
      client.patch<T>(
        target(obj),
        { metadata: { finalizers, resourceVersion: obj.metadata.resourceVersion } },
        'merge',
      ),
    removeFinalizer: async (obj, finalizers) => {
      const patch = [
        { op: 'test', path: '/metadata/finalizers', value: obj.metadata.finalizers ?? [] },
        { op: 'replace', path: '/metadata/finalizers', value: finalizers },
      ];
      try {
        await ignoreNotFound(client.patch<T>(target(obj), patch, 'json'));
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 422) throw error;
        throw new ApiError(
          409,
          'Conflict',
          `the finalizers of ${obj.kind ?? 'object'} ${obj.metadata.name} changed since it was read`,
          error.method,
          error.path,
        );
      }
    },
  };
}
