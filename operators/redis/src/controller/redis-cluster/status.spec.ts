import type { Stored } from '@opkit/controller-runtime';
import { FakeClient, recordingEvents } from '@opkit/controller-runtime/testing';
import { describe, expect, it } from 'vitest';
import { REDIS_CLUSTER, type RedisCluster } from '../../api/v1/redis-cluster.js';
import type { SyncResult } from '../topology.js';
import { clusterStatus, requeueAfter, startingStatus, writeStatus } from './status.js';

const cr: Stored<RedisCluster> = {
  ...REDIS_CLUSTER,
  metadata: { name: 'cache', namespace: 'ns', uid: 'u-1', resourceVersion: '1', generation: 4 },
  spec: { size: 6 },
};

const pass = (extra: Partial<SyncResult>): SyncResult => ({
  phase: 'Ready',
  message: 'all good',
  ready: true,
  clusterState: 'ok',
  slotsAssigned: 16384,
  primaries: 3,
  readyNodes: 6,
  members: [{ pod: 'cache-0', role: 'primary', nodeId: 'a0', slots: '0-5460', slotCount: 5461 }],
  migrationsInProgress: 0,
  roles: new Map(),
  removablePodsFrom: 6,
  actions: [],
  passwordSettled: true,
  promoted: [],
  ...extra,
});

const conditionsOf = (sync: SyncResult, replicas = 6, secretProblem?: { reason: string; message: string }) =>
  Object.fromEntries(
    (clusterStatus(cr, sync, replicas, secretProblem).conditions ?? []).map((c) => [
      c.type,
      `${c.status} ${c.reason}: ${c.message}`,
    ]),
  );

describe('clusterStatus', () => {
  it('is available, settled and healthy once the cluster is ready at its size', () => {
    const status = clusterStatus(cr, pass({}), 6, undefined);
    expect(conditionsOf(pass({}))).toEqual({
      Available: 'True ClusterOK: cluster_state:ok, all 16384 slots served',
      Progressing: 'False Ready: all good',
      Degraded: 'False AsExpected: No failures',
    });
    expect(status).toMatchObject({
      nodes: ['cache-0'],
      clusterState: 'ok',
      primaries: 3,
      readyNodes: 6,
      slotsAssigned: 16384,
      secretName: 'cache-auth',
      observedGeneration: 4,
    });
  });

  it('keeps progressing while the StatefulSet still has pods to let go', () => {
    expect(conditionsOf(pass({}), 7).Progressing).toBe('True Ready: all good');
  });

  it('tells a cluster not formed yet from one that fails', () => {
    const forming = pass({
      phase: 'Meeting',
      message: 'meeting',
      ready: false,
      slotsAssigned: 0,
      clusterState: 'fail',
    });
    expect(conditionsOf(forming).Available).toBe(
      'False ClusterNotFormed: cluster_state:fail, no slots assigned',
    );
    expect(conditionsOf({ ...forming, slotsAssigned: 100 }).Available).toBe(
      'False ClusterFail: cluster_state:fail, 100 of 16384 slots assigned',
    );
    // What is being done is Progressing's to say.
    expect(conditionsOf(forming).Progressing).toBe('True Meeting: meeting');
    expect(conditionsOf({ ...forming, clusterState: 'unknown' }).Available).toBe(
      'False ClusterNotFormed: no Redis node of the cluster answers',
    );
  });

  it('puts a password Secret problem before failing nodes and lost slots', () => {
    const failing = pass({ phase: 'Degraded', message: 'nodes marked failing: cache-2', ready: false });
    expect(conditionsOf(failing).Degraded).toBe('True NodesFailing: nodes marked failing: cache-2');
    expect(conditionsOf(pass({ phase: 'SlotsLost', message: 'lost', ready: false })).Degraded).toBe(
      'True SlotsLost: lost',
    );
    expect(conditionsOf(failing, 6, { reason: 'AuthSecretInvalid', message: 'no key' }).Degraded).toBe(
      'True AuthSecretInvalid: no key',
    );
  });
});

describe('requeueAfter', () => {
  it('looks again in 10 s once settled, 30 s with a Secret problem', () => {
    expect(requeueAfter(cr, pass({}), 6, undefined)).toEqual({ requeueAfterMs: 10_000 });
    expect(requeueAfter(cr, pass({}), 6, { reason: 'r', message: 'm' })).toEqual({ requeueAfterMs: 30_000 });
  });

  it('waits 30 s for the user, 100 ms while slots move, 1 s otherwise', () => {
    const busy = (phase: SyncResult['phase']) =>
      requeueAfter(cr, pass({ phase, ready: false }), 6, undefined);
    expect(busy('RestartBlocked')).toEqual({ requeueAfterMs: 30_000 });
    expect(busy('SlotsLost')).toEqual({ requeueAfterMs: 30_000 });
    expect(busy('MigratingSlots')).toEqual({ requeueAfterMs: 100 });
    expect(busy('Replicating')).toEqual({ requeueAfterMs: 1000 });
  });
});

describe('writeStatus', () => {
  /** The RedisCluster as stored after a pass that saw `sync`, and a writer against a client holding it. */
  async function converged(sync: SyncResult) {
    const client = new FakeClient({ statusSubresource: [REDIS_CLUSTER] });
    const withStatus: RedisCluster = { ...cr, status: clusterStatus(cr, sync, 6, undefined) };
    client.add(withStatus);
    const stored = await client.get<RedisCluster>(REDIS_CLUSTER, 'cache', 'ns');
    client.reset();
    const { events, recorded } = recordingEvents();
    const write = async (sync: SyncResult) => {
      await writeStatus({ client, events }, stored, clusterStatus(stored, sync, 6, undefined));
      await events.flush();
    };
    return { client, recorded, write };
  }

  const twoMembers = pass({}).members.concat({ pod: 'cache-1', role: 'replica', nodeId: 'b0' });

  it('writes nothing and tells nothing when the status says it all already', async () => {
    const { client, recorded, write } = await converged(pass({ members: twoMembers }));
    await write(pass({ members: twoMembers }));
    expect(client.writes()).toEqual([]);
    expect(recorded).toEqual([]);
  });

  it('writes when the number of members changes, though the rest says nothing new', async () => {
    const { client, recorded, write } = await converged(pass({ members: twoMembers }));
    await write(pass({}));
    expect(client.writes().map((w) => w.verb)).toEqual(['patch']);
    expect(recorded).toEqual([]);
  });

  it('tells each condition whose status changed, as a warning when availability is lost', async () => {
    const { recorded, write } = await converged(pass({}));
    await write(pass({ clusterState: 'fail', slotsAssigned: 100, ready: false, phase: 'Degraded' }));
    expect(recorded.map((e) => `${e.type} ${e.action} ${e.reason}`)).toEqual([
      'Warning Available=False ClusterFail',
      'Normal Progressing=True Degraded',
      'Warning Degraded=True NodesFailing',
    ]);
  });

  it('tells of the first status only that it is progressing, its availability being unknown', async () => {
    const client = new FakeClient({ objects: [cr], statusSubresource: [REDIS_CLUSTER] });
    const stored = await client.get<RedisCluster>(REDIS_CLUSTER, 'cache', 'ns');
    const { events, recorded } = recordingEvents();
    await writeStatus({ client, events }, stored, startingStatus(stored));
    await events.flush();
    expect(recorded.map((e) => e.action)).toEqual(['Progressing=True']);
  });
});
