import { describe, expect, it } from 'vitest';
import { createContext } from './context.js';
import { FakeCluster } from './testing/fake-cluster.js';
import { formedCluster, freshNodes } from './testing/shapes.js';
import { reachable, waitForMembers } from './wait-for-members.js';

const shape = { size: 6, primaries: 3, replicasPerPrimary: 1 };

describe('waitForMembers', () => {
  it('waits for new pods that are still starting', () => {
    const cluster = new FakeCluster(
      freshNodes(6).map((n) => (n.pod === 'redis-5' ? { ...n, down: true } : n)),
    );
    const ctx = cluster.context(shape);
    expect(reachable(ctx)).toBeUndefined();
    const result = waitForMembers(ctx);
    expect(result.phase).toBe('WaitingForPods');
    expect(result.message).toBe('5 of 6 Redis nodes reachable (waiting for redis-5)');
    expect(result.readyNodes).toBe(5);
    expect(cluster.commands).toEqual([]);
  });

  it('calls a formed cluster whose member stopped answering degraded', () => {
    const cluster = new FakeCluster(
      formedCluster().map((n) => (n.pod === 'redis-1' ? { ...n, down: true } : n)),
    );
    const result = waitForMembers(cluster.context(shape));
    expect(result.phase).toBe('Degraded');
    expect(result.message).toBe('5 of 6 Redis nodes reachable (waiting for redis-1)');
    // Its address is recorded again once it answers: a restarted pod changes the status once, not per step.
    expect(result.members.find((m) => m.pod === 'redis-1')).toEqual({ pod: 'redis-1', role: 'unknown' });
  });

  it('names a member whose pod is gone, as deleted for a restart, and keeps its place in the list', () => {
    const cluster = new FakeCluster(
      formedCluster().map((n) => (n.pod === 'redis-3' ? { ...n, down: true } : n)),
    );
    const { pods, observed } = cluster.observe();
    const withoutPod = pods.filter((p) => p.name !== 'redis-3');
    const ctx = createContext(
      { ...shape, password: 'secret', pods: withoutPod },
      withoutPod,
      observed,
      () => {},
    );
    const result = waitForMembers(ctx);
    expect(result.message).toBe('5 of 6 Redis nodes reachable (waiting for redis-3)');
    expect(result.members.map((m) => m.pod)).toEqual([
      'redis-0',
      'redis-1',
      'redis-2',
      'redis-3',
      'redis-4',
      'redis-5',
    ]);
    expect(result.members[3]).toEqual({ pod: 'redis-3', role: 'unknown' });
  });

  it('lets the pass go on, anchored on ordinal 0, once every member answers', () => {
    const ctx = reachable(new FakeCluster(formedCluster()).context(shape));
    expect(ctx?.anchor.pod.name).toBe('redis-0');
  });

  it('does not anchor on a member that came back empty: it knows only itself, so its cluster_state says fail', () => {
    const cluster = new FakeCluster(
      formedCluster().map((n) =>
        n.pod === 'redis-0'
          ? { pod: 'redis-0', id: 'f0', ip: '10.0.0.7', knows: [], clusterState: 'fail' }
          : n,
      ),
    );
    const ctx = reachable(cluster.context(shape));
    expect(ctx?.anchor.pod.name).toBe('redis-1');
  });

  it('anchors on a primary serving slots before a member that knows as many nodes but serves none', () => {
    const cluster = new FakeCluster(
      formedCluster().map((n) =>
        n.pod === 'redis-0' ? { pod: 'redis-0', id: 'f0', ip: '10.0.0.7', clusterState: 'fail' } : n,
      ),
    );
    const ctx = reachable(cluster.context(shape));
    expect(ctx?.anchor.self.role).toBe('primary');
    expect(ctx?.anchor.self.slots.length).toBeGreaterThan(0);
    expect(ctx?.anchor.pod.name).not.toBe('redis-0');
  });
});
