import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../object.js';
import {
  FinalizerAddError,
  FinalizerCleanupError,
  type FinalizerOps,
  FinalizerRemoveError,
  runWithFinalizer,
} from './run-finalizer.js';

const F = 'cache.example.com/finalizer';
const DELETED_AT = '2026-01-01T00:00:00Z';

type Call = { op: string; name: string | undefined; finalizers?: string[]; resourceVersion?: string };

/** Records what happens, in order; the API "server" bumps resourceVersion on each add. */
function harness(options: { failAdd?: Error; failRemove?: Error; failCleanup?: Error } = {}) {
  const calls: Call[] = [];
  const ops: FinalizerOps<KubeObject> = {
    async addFinalizer(obj, finalizers) {
      calls.push({ op: 'addFinalizer', name: obj.metadata.name, finalizers });
      if (options.failAdd) throw options.failAdd;
      return { ...obj, metadata: { ...obj.metadata, finalizers, resourceVersion: '2' } };
    },
    async removeFinalizer(obj, finalizers) {
      calls.push({ op: 'removeFinalizer', name: obj.metadata.name, finalizers });
      if (options.failRemove) throw options.failRemove;
    },
  };
  const handlers = {
    async apply(obj: KubeObject) {
      calls.push({ op: 'apply', name: obj.metadata.name, resourceVersion: obj.metadata.resourceVersion });
      return 'applied';
    },
    async cleanup(obj: KubeObject) {
      calls.push({ op: 'cleanup', name: obj.metadata.name });
      if (options.failCleanup) throw options.failCleanup;
      return 'cleaned';
    },
  };
  return { calls, ops, handlers };
}

describe('runWithFinalizer', () => {
  it('adds a missing finalizer before applying the returned object', async () => {
    // GIVEN a live object without our finalizer
    const { calls, ops, handlers } = harness();
    const obj: KubeObject = { metadata: { name: 'a', resourceVersion: '1', finalizers: ['other'] } };
    // WHEN reconciled
    const result = await runWithFinalizer(obj, F, ops, handlers);
    // THEN the full list is written first, then apply runs on the updated object
    expect(result).toBe('applied');
    expect(calls).toStrictEqual([
      { op: 'addFinalizer', name: 'a', finalizers: ['other', F] },
      { op: 'apply', name: 'a', resourceVersion: '2' },
    ]);
  });

  it('applies when the finalizer is present', async () => {
    const { calls, ops, handlers } = harness();
    const obj: KubeObject = { metadata: { name: 'a', resourceVersion: '1', finalizers: [F] } };
    expect(await runWithFinalizer(obj, F, ops, handlers)).toBe('applied');
    expect(calls).toStrictEqual([{ op: 'apply', name: 'a', resourceVersion: '1' }]);
  });

  it('does not apply when adding the finalizer fails', async () => {
    // GIVEN the patch that adds the finalizer conflicts
    const conflict = new Error('conflict');
    const { calls, ops, handlers } = harness({ failAdd: conflict });
    const obj: KubeObject = { metadata: { name: 'a' } };
    // WHEN reconciled THEN it rejects with FinalizerAddError and apply never runs
    const error = await runWithFinalizer(obj, F, ops, handlers).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FinalizerAddError);
    expect(error).toMatchObject({ code: 'FINALIZER_ADD_FAILED', finalizer: F, cause: conflict });
    expect(calls).toStrictEqual([{ op: 'addFinalizer', name: 'a', finalizers: [F] }]);
  });

  it('propagates apply errors unchanged', async () => {
    const { ops } = harness();
    const boom = new Error('boom');
    const obj: KubeObject = { metadata: { name: 'a', finalizers: [F] } };
    const handlers = { apply: () => Promise.reject(boom), cleanup: async () => 'cleaned' };
    await expect(runWithFinalizer(obj, F, ops, handlers)).rejects.toBe(boom);
  });

  it('cleans up and then removes the finalizer of an object being deleted', async () => {
    // GIVEN an object being deleted that still has our finalizer and another one
    const { calls, ops, handlers } = harness();
    const obj: KubeObject = {
      metadata: { name: 'a', deletionTimestamp: DELETED_AT, finalizers: [F, 'other'] },
    };
    // WHEN reconciled
    const result = await runWithFinalizer(obj, F, ops, handlers);
    // THEN cleanup runs, then only our finalizer is removed
    expect(result).toBe('cleaned');
    expect(calls).toStrictEqual([
      { op: 'cleanup', name: 'a' },
      { op: 'removeFinalizer', name: 'a', finalizers: ['other'] },
    ]);
  });

  it('keeps the finalizer when cleanup fails', async () => {
    // GIVEN cleanup fails
    const unreachable = new Error('backup service unreachable');
    const { calls, ops, handlers } = harness({ failCleanup: unreachable });
    const obj: KubeObject = { metadata: { name: 'a', deletionTimestamp: DELETED_AT, finalizers: [F] } };
    // WHEN reconciled
    const error = await runWithFinalizer(obj, F, ops, handlers).catch((e: unknown) => e);
    // THEN it rejects with FinalizerCleanupError and the finalizer is not removed
    expect(error).toBeInstanceOf(FinalizerCleanupError);
    expect(error).toMatchObject({
      code: 'FINALIZER_CLEANUP_FAILED',
      finalizer: F,
      cause: unreachable,
      message: `cleanup for finalizer ${F} failed: backup service unreachable`,
    });
    expect(calls).toStrictEqual([{ op: 'cleanup', name: 'a' }]);
  });

  it('reports a failed removal after a successful cleanup', async () => {
    const gone = new Error('conflict');
    const { calls, ops, handlers } = harness({ failRemove: gone });
    const obj: KubeObject = { metadata: { name: 'a', deletionTimestamp: DELETED_AT, finalizers: [F] } };
    const error = await runWithFinalizer(obj, F, ops, handlers).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FinalizerRemoveError);
    expect(error).toMatchObject({ code: 'FINALIZER_REMOVE_FAILED', finalizer: F, cause: gone });
    expect(calls).toStrictEqual([
      { op: 'cleanup', name: 'a' },
      { op: 'removeFinalizer', name: 'a', finalizers: [] },
    ]);
  });

  it('does nothing for an object being deleted without the finalizer', async () => {
    // GIVEN an object being deleted that only has someone else's finalizer
    const { calls, ops, handlers } = harness();
    const obj: KubeObject = { metadata: { name: 'a', deletionTimestamp: DELETED_AT, finalizers: ['other'] } };
    // WHEN reconciled THEN nothing runs and nothing is written
    expect(await runWithFinalizer(obj, F, ops, handlers)).toBeUndefined();
    expect(calls).toStrictEqual([]);
  });
});
