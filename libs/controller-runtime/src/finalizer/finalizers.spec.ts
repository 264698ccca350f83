import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../object.js';
import { addFinalizer, containsFinalizer, removeFinalizer } from './finalizers.js';

const F = 'cache.example.com/finalizer';

describe('finalizer helpers', () => {
  it('adds a missing finalizer without touching the original array', () => {
    // GIVEN a shallow copy of a cached object with another finalizer
    const cached: KubeObject = { metadata: { name: 'a', finalizers: ['other'] } };
    const copy: KubeObject = { ...cached, metadata: { ...cached.metadata } };
    // WHEN the finalizer is added
    const changed = addFinalizer(copy, F);
    // THEN the copy has it and the cached object does not
    expect(changed).toBe(true);
    expect(copy).toStrictEqual({ metadata: { name: 'a', finalizers: ['other', F] } });
    expect(cached).toStrictEqual({ metadata: { name: 'a', finalizers: ['other'] } });
    expect(containsFinalizer(copy, F)).toBe(true);
    expect(containsFinalizer(cached, F)).toBe(false);
  });

  it('adds to an object without finalizers', () => {
    const obj: KubeObject = { metadata: { name: 'a' } };
    expect(addFinalizer(obj, F)).toBe(true);
    expect(obj).toStrictEqual({ metadata: { name: 'a', finalizers: [F] } });
  });

  it('reports no change when adding a present finalizer', () => {
    const obj: KubeObject = { metadata: { name: 'a', finalizers: [F] } };
    expect(addFinalizer(obj, F)).toBe(false);
    expect(obj).toStrictEqual({ metadata: { name: 'a', finalizers: [F] } });
  });

  it('removes every occurrence of a finalizer', () => {
    const obj: KubeObject = { metadata: { name: 'a', finalizers: [F, 'other', F] } };
    expect(removeFinalizer(obj, F)).toBe(true);
    expect(obj).toStrictEqual({ metadata: { name: 'a', finalizers: ['other'] } });
  });

  it('reports no change when removing an absent finalizer', () => {
    const obj: KubeObject = { metadata: { name: 'a' } };
    expect(removeFinalizer(obj, F)).toBe(false);
    expect(obj).toStrictEqual({ metadata: { name: 'a' } });
    expect(containsFinalizer(obj, F)).toBe(false);
  });
});
