import type { Stored } from '@opkit/controller-runtime';
import { describe, expect, it } from 'vitest';
import { REDIS_CLUSTER, type RedisCluster } from '../../api/v1/redis-cluster.js';
import type { SyncResult } from '../topology.js';
import { clusterStatus, requeueAfter } from './status.js';

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
