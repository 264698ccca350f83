import type { KubeObject, ObjectClient } from '@opkit/controller-runtime';
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
  /**
   * One reconcile; `withEnv`: by an operator configured otherwise (restarted with another environment);
   * `via`: through another client in front of the fake one.
   */
  const run = (withEnv = operatorEnv, via: ObjectClient = client) => {
    const context = { signal: new AbortController().signal, reconcileID: 'r', controller: 'memcached' };
    return memcachedReconciler(via, events, undesiredSize, withEnv)(request, context);
  };
  const get = <T extends KubeObject>(apiVersion: string, kind: string) =>
    client.get<T>({ apiVersion, kind }, 'sessions', 'cache');
  return { client, events, recorded, run, get };
}

describe('the Memcached reconciler', () => {
  it('adds its finalizer, creates the Deployment and PDB, and reports that no server is ready yet', async () => {
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
    await get('policy/v1', 'PodDisruptionBudget');
    await expect(get('v1', 'Service')).rejects.toThrow(/not found/);

    const available = cr.status?.conditions?.find((c) => c.type === 'Available');
    expect(available).toMatchObject({
      status: 'False',
      reason: 'NoServersReady',
      message: '0 of 2 servers ready',
    });
    expect(cr.status?.conditions?.find((c) => c.type === 'Progressing')?.status).toBe('True');
    // Every object was asked for, and no server is ready yet: nothing is news for an event.
    await events.flush();
    expect(recorded).toEqual([]);
  });

  it('creates the headless Service with the first ready server, and keeps it when none is ready', async () => {
    const { run, get, client } = setup({ replicas: 2 });
    await run();
    await run();
    await expect(get('v1', 'Service')).rejects.toThrow(/not found/);
    type Ready = KubeObject & { status?: { readyReplicas?: number } };
    const withReady = async (readyReplicas: number) => {
      const deployment = await get<Ready>('apps/v1', 'Deployment');
      await client.updateStatus<Ready>({ ...deployment, status: { ...deployment.status, readyReplicas } });
      await run();
    };
    await withReady(1);
    const service = await get<KubeObject & { spec: { clusterIP: string } }>('v1', 'Service');
    expect(service.spec.clusterIP).toBe('None');
    expect(service.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Memcached', controller: true });
    // With no server ready, the Service stays and is still kept as the spec says.
    type Ports = KubeObject & { spec: { ports: { port: number }[] } };
    const live = await get<Ports>('v1', 'Service');
    await client.update<Ports>({ ...live, spec: { ...live.spec, ports: [{ port: 1234 }] } });
    await withReady(0);
    expect((await get<Ports>('v1', 'Service')).spec.ports.map((p) => p.port)).toEqual([11211]);
  });

  it('reports from the Deployment it found, not from one it has just changed', async () => {
    const { run, get, client } = setup({ replicas: 1 });
    // Creating the Deployment: its status is not known yet, so no report, and a look again if no event comes.
    expect(await run()).toEqual({ requeueAfterMs: 30_000 });
    expect((await get<Memcached>(MEMCACHED.apiVersion, MEMCACHED.kind)).status).toBeUndefined();
    expect(await run()).toBeUndefined();
    const reported = await get<Memcached>(MEMCACHED.apiVersion, MEMCACHED.kind);
    expect(reported.status?.observedGeneration).toBe(reported.metadata.generation);

    await client.update<Memcached>({ ...reported, spec: { ...reported.spec, replicas: 2 } });
    expect(await run()).toEqual({ requeueAfterMs: 30_000 });
    const resized = await get<Memcached>(MEMCACHED.apiVersion, MEMCACHED.kind);
    expect(resized.status).toEqual(reported.status);
    await run();
    const observed = await get<Memcached>(MEMCACHED.apiVersion, MEMCACHED.kind);
    expect(observed.status?.observedGeneration).toBe(observed.metadata.generation);
  });

  it('takes a PodDisruptionBudget that is gone already, though its cache still showed it, as removed', async () => {
    const { run, client, get } = setup({ replicas: 2 });
    await run();
    await run();
    await get('policy/v1', 'PodDisruptionBudget');
    const cr = await get<Memcached>(MEMCACHED.apiVersion, MEMCACHED.kind);
    await client.update<Memcached>({ ...cr, spec: { replicas: 1 } });
    // Someone deletes it between the cache's read and the reconciler's delete: the delete answers 404.
    const late = new Proxy(client, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== 'function') return value;
        if (prop !== 'delete') return value.bind(target);
        return async (...args: Parameters<FakeClient['delete']>) => {
          await target.delete(...args);
          return target.delete(...args);
        };
      },
    });
    await expect(run(env, late)).resolves.not.toThrow();
    await expect(get('policy/v1', 'PodDisruptionBudget')).rejects.toThrow(/not found/);
  });

  it('applies the Deployment, the Service and the PDB side by side: a reconcile waits for one round trip', async () => {
    const { run, client, get } = setup({ replicas: 2 });
    // A Deployment that serves but was scaled by hand, and no Service or PDB: all three need writing.
    await run();
    type Scaled = KubeObject & { spec: { replicas: number }; status?: { readyReplicas?: number } };
    const deployment = await get<Scaled>('apps/v1', 'Deployment');
    const scaled = await client.update<Scaled>({ ...deployment, spec: { ...deployment.spec, replicas: 5 } });
    await client.updateStatus<Scaled>({ ...scaled, status: { readyReplicas: 2 } });
    await client.delete({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      name: 'sessions',
      namespace: 'cache',
    });
    client.reset();
    let inFlight = 0;
    let most = 0;
    // Every apply takes a moment, as a round trip to the API server does.
    const slow = new Proxy(client, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== 'function') return value;
        if (prop !== 'apply') return value.bind(target);
        return async (...args: unknown[]) => {
          most = Math.max(most, ++inFlight);
          await new Promise((resolve) => setTimeout(resolve, 5));
          try {
            return await value.apply(target, args);
          } finally {
            inFlight--;
          }
        };
      },
    });
    await run(env, slow);
    expect(client.writes().filter((w) => w.verb === 'apply')).toHaveLength(3);
    expect(most).toBe(3);
  });

  it('writes nothing more once the world matches the spec', async () => {
    const { run, client } = setup({ replicas: 1 });
    await run();
    await run();
    client.reset();
    await run();
    expect(client.writes()).toEqual([]);
  });

  it('records repairs of drift as events, not the changes of the spec it was asked for', async () => {
    const { run, client, get, events, recorded } = setup({ replicas: 1 });
    await run();
    await run();
    const cr = await get<Memcached>(MEMCACHED.apiVersion, MEMCACHED.kind);
    await client.update<Memcached>({ ...cr, spec: { ...cr.spec, replicas: 3 } });
    await run(); // changes the Deployment
    await run(); // reports it
    type Scaled = KubeObject & { spec: { replicas: number } };
    const deployment = await get<Scaled>('apps/v1', 'Deployment');
    expect(deployment.spec.replicas).toBe(3);
    await client.update<Scaled>({ ...deployment, spec: { ...deployment.spec, replicas: 5 } });
    await run();
    await run();
    await client.delete({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'sessions', namespace: 'cache' });
    await run();
    await events.flush();
    expect(recorded.map((e) => [e.reason, e.note])).toEqual([
      ['Updated', 'Deployment sessions brought back to the spec'],
      [
        'Recreated',
        'Deployment sessions was missing (deleted, or its managed-by label removed) and is applied again',
      ],
    ]);
  });

  it('records no repair when a Memcached that had no image gets one', async () => {
    const { run, get, events, recorded } = setup({ replicas: 1 }, {});
    await run();
    await run();
    const unconfigured = await get<Memcached>(MEMCACHED.apiVersion, MEMCACHED.kind);
    await run(env);
    await get('apps/v1', 'Deployment');
    await events.flush();
    expect(unconfigured.status?.observedGeneration).toBe(unconfigured.metadata.generation);
    expect(recorded.map((e) => e.reason)).not.toContain('Recreated');
  });

  it('on deletion records why and lets the Memcached go, writing nothing to an object about to vanish', async () => {
    const { run, client, get, events, recorded } = setup({ replicas: 1 });
    await run();
    await run();
    await client.delete({ ...MEMCACHED, name: 'sessions', namespace: 'cache' });
    client.reset();
    await run();
    expect(client.writes().map((w) => `${w.verb} ${w.kind}`)).toEqual(['patch Memcached']);
    await expect(get(MEMCACHED.apiVersion, MEMCACHED.kind)).rejects.toThrow(/not found/);
    await events.flush();
    expect(recorded.map((e) => [e.type, e.reason])).toEqual([['Warning', 'Deleting']]);
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
