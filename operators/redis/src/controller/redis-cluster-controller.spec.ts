import type { KubeObject, Stored } from '@opkit/controller-runtime';
import { SECRET, type Secret } from '@opkit/controller-runtime/kinds';
import { FakeClient, recordingEvents } from '@opkit/controller-runtime/testing';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { REDIS_CLUSTER, type RedisCluster } from '../api/v1/redis-cluster.js';
import {
  AUTH_SECRET_FIELD,
  authSecretName,
  clusterMetrics,
  clustersNamingSecret,
  redisClusterReconciler,
} from './redis-cluster-controller.js';

// The reconciler against the in-memory API client, before any Redis pod exists (so no RESP is spoken): what
// it creates and what it reports. The end-to-end tests run it against a real cluster.

const env = { RELATED_IMAGE_REDIS: 'docker.io/library/redis:7.0' };

function setup(spec: RedisCluster['spec'], operatorEnv: NodeJS.ProcessEnv = env) {
  const cr: RedisCluster = {
    ...REDIS_CLUSTER,
    metadata: { name: 'cache', namespace: 'ns', uid: 'u-1' },
    spec,
  };
  const client = new FakeClient({ objects: [cr], statusSubresource: [REDIS_CLUSTER] });
  const { events, recorded } = recordingEvents('cache.example.com/redis-operator');
  const reconcile = redisClusterReconciler(client, events, clusterMetrics(new Registry()), {
    env: operatorEnv,
  });
  const run = () =>
    reconcile(
      { namespace: 'ns', name: 'cache' },
      { signal: new AbortController().signal, reconcileID: 'r', controller: 'c' },
    );
  const get = <T extends KubeObject>(apiVersion: string, kind: string, name = 'cache') =>
    client.get<T>({ apiVersion, kind }, name, 'ns');
  const conditions = async () =>
    Object.fromEntries(
      ((await get<RedisCluster>(REDIS_CLUSTER.apiVersion, REDIS_CLUSTER.kind)).status?.conditions ?? []).map(
        (c) => [c.type, `${c.status} ${c.reason}`],
      ),
    );
  return { client, events, recorded, run, get, conditions };
}

describe('the RedisCluster reconciler', () => {
  it('first only says it starts, then creates the owned objects and waits for the pods', async () => {
    const { run, get, events, recorded, conditions } = setup({ size: 6 });
    expect(await run()).toBeUndefined();
    expect(await conditions()).toEqual({ Available: 'Unknown Reconciling', Progressing: 'True Reconciling' });

    expect(await run()).toEqual({ requeueAfterMs: 1000 });
    const sts = await get<KubeObject & { spec: { replicas: number } }>('apps/v1', 'StatefulSet');
    expect(sts.spec.replicas).toBe(6);
    await get('v1', 'Service');
    await get('v1', 'Service', 'cache-headless');
    await get('v1', 'ConfigMap', 'cache-config');
    await get('policy/v1', 'PodDisruptionBudget');
    await get('v1', 'Secret', 'cache-auth');
    await get('v1', 'Secret', 'cache-auth-conf');
    expect(await conditions()).toEqual({
      Available: 'False ClusterNotFormed',
      Progressing: 'True WaitingForPods',
      Degraded: 'False AsExpected',
    });
    await events.flush();
    expect(recorded.map((e) => e.reason)).toEqual(expect.arrayContaining(['PasswordGenerated', 'Created']));
  });

  it('reports a missing Redis image as Degraded and creates nothing', async () => {
    const { run, get, conditions } = setup({ size: 3 }, {});
    await run();
    expect(await run()).toBeUndefined();
    expect(await conditions()).toMatchObject({
      Available: 'False ImageNotConfigured',
      Degraded: 'True ImageNotConfigured',
    });
    await expect(get('apps/v1', 'StatefulSet')).rejects.toThrow(/not found/);
  });

  it('waits for a user password Secret that does not exist, and looks again in 30 s', async () => {
    const { run, get, conditions } = setup({ size: 3, auth: { secretName: 'mine' } });
    await run();
    expect(await run()).toEqual({ requeueAfterMs: 30_000 });
    expect(await conditions()).toMatchObject({ Degraded: 'True AuthSecretNotFound' });
    await expect(get('apps/v1', 'StatefulSet')).rejects.toThrow(/not found/);
  });
});

describe('the Secret watch', () => {
  const cluster = (name: string, namespace: string, secretName?: string): RedisCluster => ({
    ...REDIS_CLUSTER,
    metadata: { name, namespace, uid: `u-${namespace}-${name}` },
    spec: { size: 3, ...(secretName ? { auth: { secretName } } : {}) },
  });
  const secret = (name: string, namespace = 'ns') =>
    ({ ...SECRET, metadata: { name, namespace, uid: `s-${name}` } }) as Stored<Secret>;

  it('brings back the clusters that name the Secret now, not those that named it once or were deleted', async () => {
    const client = new FakeClient({
      objects: [
        cluster('a', 'ns', 'mine'),
        cluster('b', 'ns', 'mine'),
        cluster('c', 'ns'),
        cluster('a', 'elsewhere', 'mine'),
      ],
      statusSubresource: [REDIS_CLUSTER],
    });
    client.indexField<RedisCluster>(REDIS_CLUSTER, AUTH_SECRET_FIELD, authSecretName);
    const map = (obj: Stored<Secret>) => clustersNamingSecret(obj, client);
    const reconcile = redisClusterReconciler(
      client,
      recordingEvents('t').events,
      clusterMetrics(new Registry()),
      {
        env,
      },
    );
    // Each cluster has read its Secret at least once (status first, then the password).
    for (const name of ['a', 'b', 'c']) {
      for (let i = 0; i < 2; i++) {
        await reconcile(
          { namespace: 'ns', name },
          { signal: new AbortController().signal, reconcileID: 'r', controller: 'c' },
        );
      }
    }
    expect(await map(secret('mine'))).toEqual([
      { namespace: 'ns', name: 'a' },
      { namespace: 'ns', name: 'b' },
    ]);

    const a = await client.get<RedisCluster>(REDIS_CLUSTER, 'a', 'ns');
    await client.update({ ...structuredClone(a), spec: { ...a.spec, auth: { secretName: 'theirs' } } });
    await client.delete({ ...REDIS_CLUSTER, name: 'b', namespace: 'ns' });

    expect(await map(secret('mine'))).toEqual([]);
    expect(await map(secret('theirs'))).toEqual([{ namespace: 'ns', name: 'a' }]);
    expect(await map(secret('c-auth'))).toEqual([]); // the generated Secret: its owner reference brings c back
  });
});
