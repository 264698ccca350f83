import { describe, expect, it } from 'vitest';
import { namespaceOf } from './object.js';

const stored = { name: 'cache', uid: 'u-1', resourceVersion: '1' };

describe('namespaceOf', () => {
  it('gives the namespace the API server set', () => {
    expect(namespaceOf({ kind: 'Memcached', metadata: { ...stored, namespace: 'ns' } })).toBe('ns');
  });

  it('refuses an object without one, naming it', () => {
    expect(() => namespaceOf({ kind: 'Memcached', metadata: stored })).toThrow(
      'Memcached cache has no namespace: is its kind namespaced?',
    );
  });
});
