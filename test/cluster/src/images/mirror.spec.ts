import { describe, expect, it } from 'vitest';
import { localMirrorReference, mirrorRepository } from './mirror.js';

describe('local mirror references', () => {
  it('keeps the repository path a registry client asks the mirror for', () => {
    expect(mirrorRepository('docker.io/library/memcached:1.6')).toEqual({
      repository: 'library/memcached',
      tag: '1.6',
    });
    expect(mirrorRepository('memcached:1.6.18')).toEqual({ repository: 'library/memcached', tag: '1.6.18' });
    expect(mirrorRepository('registry.k8s.io/pause:3.10.1')).toEqual({ repository: 'pause', tag: '3.10.1' });
    expect(mirrorRepository('docker.io/opkit/node:24')).toEqual({ repository: 'opkit/node', tag: '24' });
    expect(mirrorRepository('quay.io/operator-framework/olm:v0.28.0')).toEqual({
      repository: 'operator-framework/olm',
      tag: 'v0.28.0',
    });
  });

  it('puts the repository under the local registry host', () => {
    expect(localMirrorReference('docker.io/library/redis:7.0', '127.0.0.1:5000')).toBe(
      '127.0.0.1:5000/library/redis:7.0',
    );
    expect(localMirrorReference('registry.k8s.io/pause:3.10.1', '127.0.0.1:5000')).toBe(
      '127.0.0.1:5000/pause:3.10.1',
    );
  });

  it('needs a tag', () => {
    expect(() => mirrorRepository('docker.io/library/redis')).toThrow(/needs a tag/);
    expect(() => mirrorRepository('Not A Reference')).toThrow();
  });
});
