// The Memcached operator against the envtest tier: etcd and kube-apiserver only, started as any user in
// seconds. The manager runs in this process and serves its webhooks on the environment's port, which the
// installed webhook configurations and the CRD's conversion call. No controller-manager runs, so a Deployment
// never gets ReplicaSets or pods, nor owned objects a garbage collector: these tests check what the operator
// itself writes. Pods, readiness and memcached itself are the e2e suite's (test/memcached.spec.ts).
import { randomBytes } from 'node:crypto';
import {
  createLogger,
  findStatusCondition,
  isNotFound,
  type KubeObject,
  type Manager,
} from '@opkit/controller-runtime';
import { RuntimeMetrics } from '@opkit/controller-runtime/metrics';
import { envtest } from '@opkit/test-cluster/envtest';
import { eventually } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMCACHED, type Memcached } from '../../src/index.js';
import { createMemcachedOperator } from '../../src/operator.js';
import { type Deployment, MEMCACHED_IMAGE, memcached } from '../support/operator.js';

const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;
const SERVICE = { apiVersion: 'v1', kind: 'Service' } as const;
const PDB = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' } as const;
const V1ALPHA1 = { apiVersion: 'cache.example.com/v1alpha1', kind: 'Memcached' } as const;
type Old = KubeObject & { spec: Record<string, unknown> };

const namespace = `memcached-${randomBytes(4).toString('hex')}`;
let manager: Manager;
const stop = new AbortController();
let running: Promise<void> | undefined;

const api = () => manager.apiClient;
const get = (name: string) => api().get<Memcached>(MEMCACHED, name, namespace);
const deployment = (name: string) => api().get<Deployment>(DEPLOYMENT, name, namespace);
const conditions = (cr: Memcached) =>
  Object.fromEntries((cr.status?.conditions ?? []).map((c) => [c.type, [c.status, c.reason]]));

beforeAll(async () => {
  const env = envtest();
  manager = createMemcachedOperator({
    kubeConfig: env.kubeConfig,
    namespaces: [namespace],
    namespace,
    metricsBindAddress: '127.0.0.1:0',
    healthProbeBindAddress: '127.0.0.1:0',
    env: { RELATED_IMAGE_MEMCACHED: MEMCACHED_IMAGE },
    logger: createLogger({ level: process.env.OPKIT_TEST_VERBOSE ? 'debug' : 'error' }),
    managerOptions: {
      metrics: new RuntimeMetrics(),
      webhook: { host: env.webhook.host, port: env.webhook.port, certPath: env.webhook.certDir },
    },
  });
  await api().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  running = manager.start(stop.signal);
  await Promise.race([manager.elected, running]);
  await eventually('the webhook server listening', async () => Boolean(manager.webhookServer?.address));
});

afterAll(async () => {
  stop.abort();
  await running;
});

describe('the Memcached operator on envtest', () => {
  it('creates the Deployment and PodDisruptionBudget of a Memcached, owned by it, and reports it rolling out', async () => {
    await api().create(memcached('sample', namespace, { replicas: 2 }));
    const d = await eventually('the Deployment', () => deployment('sample'));
    expect(d.spec.replicas).toBe(2);
    expect(d.spec.template.spec.containers[0]?.image).toBe(MEMCACHED_IMAGE);
    expect(d.spec.template.spec.containers[0]?.args).toContain('--memory-limit=64');
    expect(d.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Memcached', name: 'sample', controller: true }),
    ]);
    // Two servers: at most one at a time may be drained.
    const pdb = await eventually('the PodDisruptionBudget', () =>
      api().get<KubeObject & { spec: { maxUnavailable?: number } }>(PDB, 'sample', namespace),
    );
    expect(pdb.spec.maxUnavailable).toBe(1);
    // No pods ever come up here: the operator says so, and that nothing failed.
    const cr = await eventually('the status', async () => {
      const current = await get('sample');
      return current.status?.observedGeneration === current.metadata.generation ? current : undefined;
    });
    expect(cr.metadata.finalizers).toEqual(['cache.example.com/finalizer']);
    expect(conditions(cr)).toMatchObject({
      Available: ['False', expect.any(String)],
      Progressing: ['True', 'RollingOut'],
      Degraded: ['False', 'AsExpected'],
    });
    expect(findStatusCondition(cr.status?.conditions, 'Available')?.message).toBe('0 of 2 servers ready');
  });

  it('publishes the headless Service once the Deployment reports a ready server', async () => {
    // Nothing has a ready server yet, so nothing to publish.
    await expect(api().get(SERVICE, 'sample', namespace)).rejects.toSatisfy(isNotFound);
    // Here the test plays the controller-manager: the Deployment's status says one server is ready.
    const d = await deployment('sample');
    await api().patch(
      { ...DEPLOYMENT, name: 'sample', namespace },
      {
        status: {
          observedGeneration: d.metadata.generation,
          replicas: 2,
          updatedReplicas: 2,
          readyReplicas: 1,
          availableReplicas: 1,
        },
      },
      'merge',
      { subresource: 'status' },
    );
    const service = await eventually('the Service', () =>
      api().get<KubeObject & { spec: { clusterIP?: string } }>(SERVICE, 'sample', namespace),
    );
    expect(service.spec.clusterIP).toBe('None');
    expect(service.metadata.ownerReferences?.[0]?.name).toBe('sample');
  });

  it('resizes the Deployment with the Memcached and puts back a hand-edited one', async () => {
    await api().patch({ ...MEMCACHED, name: 'sample', namespace }, { spec: { replicas: 3 } });
    await eventually('3 replicas', async () => (await deployment('sample')).spec.replicas === 3);
    await api().patch({ ...DEPLOYMENT, name: 'sample', namespace }, { spec: { replicas: 1 } });
    await eventually('the drift undone', async () => (await deployment('sample')).spec.replicas === 3);
  });

  it('defaults through its mutating webhook and refuses through its validating webhook, both called by the API server', async () => {
    const created = await api().create(memcached('defaulted', namespace, { memory: '32Mi' }));
    // `threads` is the defaulting webhook's (the schema has no default for it).
    expect(created.spec.threads).toBe(4);
    const refused = await api()
      .create(memcached('invalid', namespace, { memory: '1Gi', resources: { limits: { memory: '1Gi' } } }))
      .then(
        () => 'accepted',
        (error: unknown) => (error as Error).message,
      );
    expect(refused).toContain('admission webhook "vmemcached-v1beta1.kb.io" denied the request');
    expect(refused).toContain('spec.memory: Invalid value: "1Gi"');
  });

  it('serves v1alpha1 through its conversion webhook, stored as v1beta1', async () => {
    await api().create<Old>({
      ...V1ALPHA1,
      metadata: { name: 'old', namespace },
      spec: { size: 1, memoryLimitMB: 32 },
    });
    expect((await get('old')).spec).toMatchObject({ replicas: 1, memory: '32Mi', threads: 4 });
    await api().patch({ ...MEMCACHED, name: 'old', namespace }, { spec: { memory: '1G' } });
    expect((await api().get<Old>(V1ALPHA1, 'old', namespace)).spec.memoryLimitMB).toBe(954);
    const d = await eventually('the Deployment at 1G', async () => {
      const current = await deployment('old');
      return current.spec.template.spec.containers[0]?.args.includes('--memory-limit=954')
        ? current
        : undefined;
    });
    expect(d.spec.replicas).toBe(1);
  });

  it('lets a deleted Memcached go once its finalizer ran', async () => {
    await api().delete({ ...MEMCACHED, name: 'sample', namespace });
    await eventually('the Memcached gone', async () => {
      try {
        await get('sample');
        return false;
      } catch (error) {
        return isNotFound(error);
      }
    });
  });
});
