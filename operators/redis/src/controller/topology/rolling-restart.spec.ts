import { describe, expect, it } from 'vitest';
import { rollingRestart } from './rolling-restart.js';
import { shapedContext } from './testing/contexts.js';
import { FakeCluster, type FakeNodeSpec } from './testing/fake-cluster.js';
import { formedCluster, primaries } from './testing/shapes.js';

const shape = { size: 6, primaries: 3, replicasPerPrimary: 1 };

const outdated = (pods: readonly string[], nodes = formedCluster()): FakeNodeSpec[] =>
  nodes.map((n) => ({ ...n, outdated: pods.includes(n.pod) }));

describe('rollingRestart', () => {
  it('waits until the StatefulSet controller records the new revision', async () => {
    const cluster = new FakeCluster(outdated(['redis-0']));
    const result = await rollingRestart(shapedContext(cluster, { ...shape, revisionKnown: false }));
    expect(result?.phase).toBe('RollingRestart');
    expect(result?.message).toBe('waiting for the StatefulSet controller to record the current revision');
  });

  it('restarts replicas first, and says whether this is the first pod of the roll', async () => {
    const all = ['redis-0', 'redis-1', 'redis-2', 'redis-3', 'redis-4', 'redis-5'];
    const result = await rollingRestart(shapedContext(new FakeCluster(outdated(all)), shape));
    expect(result?.message).toBe('6 of 6 pod(s) to restart; restarting replica redis-3');
    expect(result?.restartPod).toEqual({ name: 'redis-3', uid: 'uid-redis-3', role: 'replica', first: true });
  });

  it('waits for replicas still syncing', async () => {
    const nodes = outdated(['redis-1']).map((n) =>
      n.pod === 'redis-4'
        ? { ...n, replication: { master_link_status: 'down', master_sync_in_progress: '1' } }
        : n,
    );
    const result = await rollingRestart(shapedContext(new FakeCluster(nodes), shape));
    expect(result?.message).toBe('1 of 6 pod(s) to restart; waiting for redis-4 to sync');
    expect(result?.restartPod).toBeUndefined();
  });

  it('has an in-sync replica take over from an outdated primary before the primary restarts', async () => {
    const cluster = new FakeCluster(outdated(['redis-1']));
    const result = await rollingRestart(shapedContext(cluster, shape));
    expect(cluster.commands).toEqual(['redis-4: CLUSTER FAILOVER', 'redis-4: ROLE']);
    expect(result?.message).toBe('1 of 6 pod(s) to restart; redis-4 took over from redis-1');
    expect(result?.promoted).toEqual(['a4']);
    expect(result?.restartPod).toBeUndefined();
    expect(result?.actions).toEqual([
      { reason: 'FailoverRequested', message: 'redis-4 takes over from primary redis-1 before its restart' },
    ]);
    expect(cluster.primaryOf('redis-1')).toBe('redis-4');
  });

  it('refuses to restart a primary without a replica on an emptyDir, and restarts it with a claim', async () => {
    const shapeWithout = { size: 3, primaries: 3, replicasPerPrimary: 0 };
    const cluster = new FakeCluster(outdated(['redis-2'], primaries(3)));
    const blocked = await rollingRestart(shapedContext(cluster, shapeWithout));
    expect(blocked?.phase).toBe('RestartBlocked');
    expect(blocked?.message).toBe(
      'redis-2 run an outdated configuration, but restarting a primary without a replica on an emptyDir would ' +
        'lose its keys: delete the pod to apply it',
    );
    const restarted = await rollingRestart(shapedContext(cluster, { ...shapeWithout, persistent: true }));
    expect(restarted?.restartPod).toEqual({
      name: 'redis-2',
      uid: 'uid-redis-2',
      role: 'primary',
      first: false,
    });
  });

  it('does nothing when every pod runs the current template', async () => {
    expect(await rollingRestart(shapedContext(new FakeCluster(outdated([])), shape))).toBeUndefined();
  });
});
