import type { Stored } from '@opkit/controller-runtime';
import { FakeClient, recordingEvents } from '@opkit/controller-runtime/testing';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { REDIS_CLUSTER, type RedisCluster } from '../../api/v1/redis-cluster.js';
import type { SyncResult } from '../topology.js';
import { startPass } from './context.js';
import { FailoverTracker } from './failovers.js';
import { clusterMetrics } from './metrics.js';

function setup() {
  const cr: Stored<RedisCluster> = {
    ...REDIS_CLUSTER,
    metadata: { name: 'cache', namespace: 'ns', uid: 'uid-cache', resourceVersion: '1' },
    spec: { size: 6 },
  };
  const { events, recorded } = recordingEvents('cache.example.com/redis-operator');
  const registry = new Registry();
  const pass = startPass(
    { client: new FakeClient(), events, metrics: clusterMetrics(registry), env: {} },
    cr,
  );
  const failovers = async () =>
    (await registry.getSingleMetric('redis_cluster_failovers_total')?.get())?.values[0]?.value ?? 0;
  return { pass, events, recorded, failovers };
}

const sync = (roles: Record<string, 'primary' | 'replica'>, promoted: string[] = []) =>
  ({
    roles: new Map(Object.entries(roles)),
    promoted,
    members: [
      { pod: 'cache-0', nodeId: 'a0', role: roles.a0 ?? 'unknown' },
      { pod: 'cache-3', nodeId: 'a3', role: roles.a3 ?? 'unknown' },
    ],
  }) as unknown as SyncResult;

describe('FailoverTracker', () => {
  it('counts and announces a replica that became primary on its own', async () => {
    const { pass, events, recorded, failovers } = setup();
    const tracker = new FailoverTracker();
    tracker.observe(pass, sync({ a0: 'primary', a3: 'replica' }));
    tracker.observe(pass, sync({ a0: 'replica', a3: 'primary' }));
    await events.flush();
    expect(await failovers()).toBe(1);
    expect(recorded.map((e) => [e.reason, e.note])).toEqual([
      ['FailoverDetected', 'replica cache-3 was promoted to primary'],
    ]);
  });

  it('does not call the rolling restart’s own promotion a failover', async () => {
    const { pass, events, recorded, failovers } = setup();
    const tracker = new FailoverTracker();
    tracker.observe(pass, sync({ a0: 'primary', a3: 'replica' }, ['a3']));
    tracker.observe(pass, sync({ a0: 'replica', a3: 'primary' }));
    await events.flush();
    expect(await failovers()).toBe(0);
    expect(recorded).toEqual([]);
  });

  it('starts over for a cluster it forgot', async () => {
    const { pass, failovers } = setup();
    const tracker = new FailoverTracker();
    tracker.observe(pass, sync({ a3: 'replica' }));
    tracker.forget('ns/cache');
    tracker.observe(pass, sync({ a3: 'primary' }));
    expect(await failovers()).toBe(0);
  });
});
