import type { KubeObject } from '@opkit/controller-runtime';
import { FakeClient, recordingEvents } from '@opkit/controller-runtime/testing';
import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { MEMCACHED, type Memcached } from '../api/v1beta1/memcached.js';
import { FINALIZER, memcachedReconciler } from './memcached-controller.js';

// The reconciler on its own, against the in-memory fake client: what it creates, what it reports, and that it
// writes nothing once the world matches the spec. (The end-to-end tests run it against a real cluster.)

const env = { RELATED_IMAGE_MEMCACHED: 'docker.io/library/memcached:1.6' };
const request = { namespace: 'cache', name: 'sessions' };

function setup(spec: Memcached['spec'], operatorEnv: NodeJS.ProcessEnv = env) {
  const cr: Memcached = {
    ...MEMCACHED,
    metadata: { name: 'sessions', namespace: 'cache', uid: 'u-1' },
    spec,
  };
  const client = new FakeClient({ objects: [cr], statusSubresource: [MEMCACHED] });
  const { events, recorded } = recordingEvents('cache.example.com/memcached-operator');
  const undesiredSize = new Counter({ name: 'undesired_size', help: 'h', registers: [new Registry()] });
  const reconcile = memcachedReconciler(client, events, undesiredSize, operatorEnv);
  const run = () =>
    reconcile(request, { signal: new AbortController().signal, reconcileID: 'r', controller: 'memcached' });
  const get = <T extends KubeObject>(apiVersion: string, kind: string) =>
    client.get<T>({ apiVersion, kind }, 'sessions', 'cache');
  return { client, events, recorded, run, get };
}

describe('the Memcached reconciler', () => {
  it('adds its finalizer, creates the Deployment, Service and PDB, and reports that no server is ready yet', async () => {
    const { run, get, events, recorded } = setup({ replicas: 2 });
    await run();
    await run();

    const cr = await get<Memcached>(MEMCACHED.apiVersion, MEMCACHED.kind);
    expect(cr.metadata.finalizers).toEqual([FINALIZER]);
    const deployment = await get<KubeObject & { spec: { replicas: number } }>('apps/v1', 'Deployment');
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'Memcached',
      name: 'sessions',
      controller: true,
    });
    await get('v1', 'Service');
    await get('policy/v1', 'PodDisruptionBudget');

    const available = cr.status?.conditions?.find((c) => c.type === 'Available');
    expect(available).toMatchObject({
      status: 'False',
      reason: 'NoServersReady',
      message: '0 of 2 servers ready',
    });
    expect(cr.status?.conditions?.find((c) => c.type === 'Progressing')?.status).toBe('True');
    await events.flush();
    expect(recorded.map((e) => e.reason)).toContain('Created');
  });

  it('writes nothing more once the world matches the spec', async () => {
    const { run, client } = setup({ replicas: 1 });
    await run();
    await run();
    client.reset();
    await run();
    expect(client.writes()).toEqual([]);
  });

  it('tells a change of the spec from a repair of drift in its events', async () => {
    const { run, client, get, events, recorded } = setup({ replicas: 1 });
    await run();
    await run();
    const cr = await get<Memcached>(MEMCACHED.apiVersion, MEMCACHED.kind);
    await client.update<Memcached>({ ...cr, spec: { ...cr.spec, replicas: 3 } });
    await run();
    type Scaled = KubeObject & { spec: { replicas: number } };
    const deployment = await get<Scaled>('apps/v1', 'Deployment');
    expect(deployment.spec.replicas).toBe(3);
    await client.update<Scaled>({ ...deployment, spec: { ...deployment.spec, replicas: 5 } });
    await run();
    await events.flush();
    expect(recorded.filter((e) => e.reason === 'Updated').map((e) => e.note)).toEqual([
      'Deployment sessions updated to the spec: 3 replicas',
      'Deployment sessions brought back to the spec',
    ]);
  });

  it('reports a missing operand image as Degraded and creates nothing', async () => {
    const { run, get } = setup({ replicas: 1 }, {});
    await run();
    await run();
    const cr = await get<Memcached>(MEMCACHED.apiVersion, MEMCACHED.kind);
    expect(cr.status?.conditions?.find((c) => c.type === 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'ImageNotConfigured',
    });
    await expect(get('apps/v1', 'Deployment')).rejects.toThrow(/not found/);
  });
});
