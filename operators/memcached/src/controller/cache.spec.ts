import type { Stored } from '@opkit/controller-runtime';
import { cacheSelects } from '@opkit/controller-runtime/cache';
import type { Deployment, Pod } from '@opkit/controller-runtime/kinds';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MEMCACHED, type Memcached } from '../api/v1beta1/memcached.js';
import { memcachedCache, serverFields } from './cache.js';
import { observedStatus } from './memcached-status.js';
import { desiredDeployment, desiredPodDisruptionBudget, desiredService } from './resources.js';

// The pod cache keeps a fraction of each pod: whatever pods the operator sees, the status it reports from the
// cached fields must be the one it would report from the whole pods.

const cr: Memcached = {
  ...MEMCACHED,
  metadata: { name: 'sessions', namespace: 'cache', generation: 3 },
  spec: { replicas: 3 },
};

const condition = fc.record({
  type: fc.constantFrom('Ready', 'ContainersReady', 'PodScheduled', 'Initialized'),
  status: fc.constantFrom('True', 'False', 'Unknown'),
  reason: fc.option(fc.constantFrom('ContainersNotReady', 'PodCompleted'), { nil: undefined }),
  lastTransitionTime: fc.constant('2026-01-01T00:00:00Z'),
});

const containerState = fc.oneof(
  fc.record({
    waiting: fc.record({
      reason: fc.constantFrom('ContainerCreating', 'ImagePullBackOff', 'CrashLoopBackOff', 'ErrImagePull'),
      message: fc.string(),
    }),
  }),
  fc.record({ running: fc.record({ startedAt: fc.constant('2026-01-01T00:00:00Z') }) }),
);

const pod: fc.Arbitrary<Stored<Pod>> = fc
  .record({
    name: fc.stringMatching(/^sessions-[a-z0-9]{1,5}$/),
    deleting: fc.boolean(),
    conditions: fc.array(condition, { maxLength: 4 }),
    podIP: fc.option(fc.ipV4(), { nil: undefined }),
    states: fc.array(containerState, { maxLength: 2 }),
  })
  .map((p) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: p.name,
      namespace: 'cache',
      uid: `uid-${p.name}`,
      resourceVersion: '42',
      labels: { 'app.kubernetes.io/instance': 'sessions', 'pod-template-hash': 'abc' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:00:00Z' },
      ...(p.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: { containers: [{ name: 'memcached', image: 'memcached:1.6' }], nodeName: 'node-1' },
    status: {
      phase: 'Running',
      conditions: p.conditions,
      podIP: p.podIP,
      hostIP: '10.0.0.1',
      containerStatuses: p.states.map((state, i) => ({
        name: `c${i}`,
        image: 'memcached:1.6',
        imageID: '',
        ready: 'running' in state,
        restartCount: 0,
        state,
      })),
    },
  }));

const deployment: Deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'sessions', generation: 2 },
  status: { observedGeneration: 2, replicas: 3, updatedReplicas: 3, readyReplicas: 3 },
};

describe('the pod cache', () => {
  // A status stamps its condition changes with the clock: stop it, so that the two statuses compared are made
  // at the same instant even when a second turns between them.
  beforeAll(() => {
    vi.useFakeTimers({ now: new Date('2026-06-01T12:00:00Z'), toFake: ['Date'] });
  });
  afterAll(() => {
    vi.useRealTimers();
  });

  it('keeps every field the status is built from', () => {
    fc.assert(
      fc.property(fc.uniqueArray(pod, { selector: (p) => p.metadata.name, maxLength: 5 }), (pods) => {
        const seen = { deployment, outcome: 'unchanged' as const, port: 11211 };
        expect(observedStatus(cr, { ...seen, pods: pods.map(serverFields) })).toEqual(
          observedStatus(cr, { ...seen, pods }),
        );
      }),
    );
  });

  it('keeps what the pod watch maps to a Memcached and the cache indexes by', () => {
    fc.assert(
      fc.property(pod, (p) => {
        const cached = serverFields(p);
        expect(cached.metadata).toMatchObject({
          name: p.metadata.name,
          namespace: p.metadata.namespace,
          uid: p.metadata.uid,
          resourceVersion: p.metadata.resourceVersion,
          labels: p.metadata.labels,
        });
        expect(JSON.stringify(cached).length).toBeLessThan(JSON.stringify(p).length);
      }),
    );
  });
});

// The cache holds only what the operator manages: an object it writes but cannot read back would look missing
// on every reconcile and be written again each time.
describe('what the operator caches', () => {
  const memcached = fc.record({
    name: fc.stringMatching(/^[a-z]([a-z0-9-]{0,30}[a-z0-9])?$/),
    namespace: fc.stringMatching(/^[a-z]([a-z0-9-]{0,20}[a-z0-9])?$/),
    replicas: fc.integer({ min: 0, max: 10 }),
  });
  const stored = ({ name, namespace, replicas }: { name: string; namespace: string; replicas: number }) =>
    ({
      ...MEMCACHED,
      metadata: { name, namespace, uid: `uid-${name}`, resourceVersion: '1', generation: 1 },
      spec: { replicas },
    }) as Stored<Memcached>;

  it('selects every object the operator applies, and the pods its Deployment makes', () => {
    fc.assert(
      fc.property(memcached, (m) => {
        const cr = stored(m);
        const deployment = desiredDeployment(cr, 'memcached:1.6');
        for (const written of [deployment, desiredService(cr), desiredPodDisruptionBudget(cr)]) {
          expect(cacheSelects(memcachedCache, written), `${written.kind} ${m.name}`).toBe(true);
        }
        const pod = {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { labels: deployment.spec?.template.metadata?.labels },
        };
        expect(cacheSelects(memcachedCache, pod)).toBe(true);
      }),
    );
  });

  it('leaves out the Deployments, Services, PodDisruptionBudgets and pods of others', () => {
    const others = { 'app.kubernetes.io/name': 'memcached', 'app.kubernetes.io/instance': 'sessions' };
    for (const [apiVersion, kind] of [
      ['apps/v1', 'Deployment'],
      ['v1', 'Service'],
      ['policy/v1', 'PodDisruptionBudget'],
      ['v1', 'Pod'],
    ] as const) {
      expect(cacheSelects(memcachedCache, { apiVersion, kind, metadata: { labels: others } }), kind).toBe(
        false,
      );
    }
  });
});
