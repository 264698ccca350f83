import type { Stored } from '@opkit/controller-runtime';
import { cacheSelects } from '@opkit/controller-runtime/cache';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RedisCluster } from '../api/v1/redis-cluster.js';
import { redisCache } from './cache.js';
import {
  desiredAuthConfSecret,
  desiredClientService,
  desiredConfigMap,
  desiredHeadlessService,
  desiredPasswordSecret,
  desiredPodDisruptionBudget,
  desiredStatefulSet,
} from './resources.js';

// The cache holds only what the operator manages: an object it writes but cannot read back would look missing
// on every reconcile and be written again each time.
describe('what the operator caches', () => {
  const cluster = fc.record({
    name: fc.stringMatching(/^[a-z]([a-z0-9-]{0,30}[a-z0-9])?$/),
    namespace: fc.stringMatching(/^[a-z]([a-z0-9-]{0,20}[a-z0-9])?$/),
    size: fc.integer({ min: 3, max: 12 }),
  });
  const stored = ({ name, namespace, size }: { name: string; namespace: string; size: number }) =>
    ({
      apiVersion: 'cache.example.com/v1',
      kind: 'RedisCluster',
      metadata: { name, namespace, uid: `uid-${name}`, resourceVersion: '1', generation: 1 },
      spec: { size },
    }) as Stored<RedisCluster>;

  it('selects every object the operator applies, and the pods its StatefulSet makes', () => {
    fc.assert(
      fc.property(cluster, (c) => {
        const cr = stored(c);
        const statefulSet = desiredStatefulSet(cr, 'redis:8', c.size, 'digest');
        for (const written of [
          statefulSet,
          desiredHeadlessService(cr),
          desiredClientService(cr),
          desiredConfigMap(cr),
          desiredPasswordSecret(cr, 'password'),
          desiredAuthConfSecret(cr, 'password'),
          desiredPodDisruptionBudget(cr),
        ]) {
          expect(cacheSelects(redisCache, written), `${written.kind} ${written.metadata.name}`).toBe(true);
        }
        const pod = {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { labels: statefulSet.spec?.template.metadata?.labels },
        };
        expect(cacheSelects(redisCache, pod)).toBe(true);
      }),
    );
  });

  it('leaves out the objects of others, but not Secrets, which may be the user’s password', () => {
    const others = { metadata: { labels: { 'app.kubernetes.io/name': 'redis' } } };
    for (const [apiVersion, kind] of [
      ['apps/v1', 'StatefulSet'],
      ['v1', 'Service'],
      ['v1', 'ConfigMap'],
      ['policy/v1', 'PodDisruptionBudget'],
      ['v1', 'Pod'],
    ] as const) {
      expect(cacheSelects(redisCache, { apiVersion, kind, ...others }), kind).toBe(false);
    }
    expect(cacheSelects(redisCache, { apiVersion: 'v1', kind: 'Secret', ...others })).toBe(true);
  });
});
