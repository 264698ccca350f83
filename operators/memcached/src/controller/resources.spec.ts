import type { Stored } from '@opkit/controller-runtime';
import { describe, expect, it } from 'vitest';
import type { Memcached } from '../api/v1beta1/memcached.js';
import { desiredDeployment, ImageNotConfiguredError, imageFor, memcachedArgs } from './resources.js';

const cr: Stored<Memcached> = {
  apiVersion: 'cache.example.com/v1beta1',
  kind: 'Memcached',
  metadata: { name: 'cache', namespace: 'apps', uid: 'uid-1', resourceVersion: '1' },
  spec: { replicas: 2, memory: '128Mi', extraArgs: ['-v'] },
};

describe('the desired Deployment', () => {
  it('maps the spec to memcached arguments, defaults filled in', () => {
    expect(memcachedArgs(cr)).toStrictEqual([
      '--port=11211',
      '--memory-limit=128',
      '--conn-limit=1024',
      '--threads=4',
      '--max-item-size=1m',
      '-v',
    ]);
  });

  it('rounds the memory up to whole megabytes and takes threads from the CPU limit when unset', () => {
    const spec = { replicas: 1, memory: '1G', resources: { limits: { cpu: '1500m' } } };
    expect(memcachedArgs({ ...cr, spec })).toContain('--memory-limit=954');
    expect(memcachedArgs({ ...cr, spec })).toContain('--threads=2');
    expect(memcachedArgs({ ...cr, spec: { ...spec, threads: 8 } })).toContain('--threads=8');
  });

  it('takes the image from the spec, else from RELATED_IMAGE_MEMCACHED, else fails clearly', () => {
    expect(imageFor(cr, { RELATED_IMAGE_MEMCACHED: 'mirror/memcached:1' })).toBe('mirror/memcached:1');
    expect(imageFor({ ...cr, spec: { ...cr.spec, image: 'own:2' } }, {})).toBe('own:2');
    expect(() => imageFor(cr, {})).toThrow(ImageNotConfiguredError);
  });

  it('selects by instance, runs under the restricted profile as the image’s numeric user, and is owned by the CR', () => {
    const d = desiredDeployment(cr, 'memcached:1.6') as unknown as {
      metadata: { ownerReferences: unknown[] };
      spec: {
        selector: unknown;
        template: { spec: { securityContext: object; containers: { securityContext: object }[] } };
      };
    };
    expect(d.spec.selector).toStrictEqual({
      matchLabels: { 'app.kubernetes.io/name': 'memcached', 'app.kubernetes.io/instance': 'cache' },
    });
    // A kubelet can check runAsNonRoot only against a numeric user; the official image's is the name memcache.
    expect(d.spec.template.spec.securityContext).toStrictEqual({
      runAsNonRoot: true,
      runAsUser: 11211,
      runAsGroup: 11211,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(d.spec.template.spec.containers[0]!.securityContext).toStrictEqual({
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(d.metadata.ownerReferences).toStrictEqual([
      {
        apiVersion: 'cache.example.com/v1beta1',
        kind: 'Memcached',
        name: 'cache',
        uid: 'uid-1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  });

  it('spreads the servers over nodes softly, without pod anti-affinity', () => {
    const pod = desiredDeployment(cr, 'memcached:1.6').spec?.template.spec;
    expect(pod?.topologySpreadConstraints).toStrictEqual([
      {
        maxSkew: 1,
        topologyKey: 'kubernetes.io/hostname',
        whenUnsatisfiable: 'ScheduleAnyway',
        labelSelector: {
          matchLabels: { 'app.kubernetes.io/name': 'memcached', 'app.kubernetes.io/instance': 'cache' },
        },
      },
    ]);
    // The scheduler scores a preferred anti-affinity against every pod in the cluster for each pod it places.
    expect(pod?.affinity).toBeUndefined();
  });
});
