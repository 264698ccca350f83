import { describe, expect, it } from 'vitest';
import type { CachedClient } from '../client/cached-client.js';
import { ApiError, isConflict } from '../errors/errors.js';
import type { KubeObject, Stored } from '../object.js';
import { clientFinalizerOps } from './client-ops.js';

const F = 'cache.example.com/finalizer';
const dying: Stored<KubeObject> = {
  apiVersion: 'cache.example.com/v1',
  kind: 'Memcached',
  metadata: { name: 'm', namespace: 'ns', uid: 'uid-m', resourceVersion: '7', finalizers: [F, 'other'] },
};

/** A client whose every patch is recorded and answered with `failure` (or the patched object). */
function patching(failure?: ApiError) {
  const patches: unknown[] = [];
  const client: Pick<CachedClient, 'patch'> = {
    patch: async <T extends KubeObject>(_target: unknown, patch: unknown) => {
      patches.push(patch);
      if (failure) throw failure;
      return dying as Stored<T>;
    },
  };
  return { patches, ops: clientFinalizerOps<KubeObject>(client) };
}

const answer = (status: number, reason: string) =>
  new ApiError(
    status,
    reason,
    `fake ${reason}`,
    'PATCH',
    '/apis/cache.example.com/v1/namespaces/ns/memcacheds/m',
  );

describe('clientFinalizerOps', () => {
  it('adds a finalizer with a merge patch of the whole list and the resourceVersion', async () => {
    const { patches, ops } = patching();
    await ops.addFinalizer(dying, [F, 'other', 'more']);
    expect(patches).toEqual([{ metadata: { finalizers: [F, 'other', 'more'], resourceVersion: '7' } }]);
  });

  it('removes a finalizer only if the list is still the one read, whatever else changed', async () => {
    const { patches, ops } = patching();
    await ops.removeFinalizer(dying, ['other']);
    expect(patches).toEqual([
      [
        { op: 'test', path: '/metadata/finalizers', value: [F, 'other'] },
        { op: 'replace', path: '/metadata/finalizers', value: ['other'] },
      ],
    ]);
  });

  it('reports a list changed since it was read (the API server’s 422 for a failed test) as a conflict', async () => {
    const { ops } = patching(answer(422, 'Invalid'));
    const error = await ops.removeFinalizer(dying, ['other']).catch((e: unknown) => e);
    expect(isConflict(error)).toBe(true);
    expect((error as Error).message).toContain('finalizers of Memcached m changed');
  });

  it('takes the removal from an object already gone as done', async () => {
    const { patches, ops } = patching(answer(404, 'NotFound'));
    await expect(ops.removeFinalizer(dying, ['other'])).resolves.toBeUndefined();
    expect(patches).toHaveLength(1);
  });

  it('fails the removal on a conflict, for the reconcile to run again', async () => {
    const { ops } = patching(answer(409, 'Conflict'));
    await expect(ops.removeFinalizer(dying, ['other'])).rejects.toBeInstanceOf(ApiError);
  });

  it('fails adding to an object already gone', async () => {
    const { ops } = patching(answer(404, 'NotFound'));
    await expect(ops.addFinalizer(dying, [F, 'other'])).rejects.toBeInstanceOf(ApiError);
  });
});
