import { EtcdAccess, type LocalCluster, startCluster } from '@opkit/test-cluster';
import { eventually } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controllerManagedBy } from '../src/builder/builder.js';
import { directClient } from '../src/client/direct-client.js';
import type { Controller } from '../src/controller/controller.js';
import { isNotFound } from '../src/errors/errors.js';
import type { SharedInformer } from '../src/internal/cache/informer.js';
import { createLogger } from '../src/log/index.js';
import { Manager } from '../src/manager/manager.js';
import { RuntimeMetrics } from '../src/metrics/runtime-metrics.js';
import type { KubeObject } from '../src/object.js';
import {
  CONFIG_MAP,
  type ConfigMap,
  createWidgets,
  installWidgetCrd,
  WIDGET,
  widgetReconciler,
} from './support/widgets.js';

// These tests restart control-plane components, so they run on a cluster of their own.
let cluster: LocalCluster;
let manager: Manager;
let controller: Controller;
const stop = new AbortController();
let running: Promise<void>;
const namespace = 'resilience';
const WIDGETS = 20;

const configMapNames = async () =>
  (await manager.apiClient.list<ConfigMap>(CONFIG_MAP, { namespace })).items
    .filter((m) => m.metadata.ownerReferences?.length)
    .map((m) => m.metadata.name);
const writes = () => manager.metrics.requestCount({ writesOnly: true });
const idle = () => controller.queue.len() === 0 && controller.queue.processing() === 0;

beforeAll(async () => {
  cluster = await startCluster({ realNode: false, nodes: 1 });
  manager = new Manager({
    kubeConfig: cluster.kubeConfig,
    namespaces: [namespace],
    logger: createLogger({ level: 'error' }),
    metrics: new RuntimeMetrics({ processMetrics: false }),
    fieldManager: 'widget-controller',
  });
  await manager.apiClient.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  await installWidgetCrd(manager.apiClient);
  await createWidgets(manager.apiClient, namespace, WIDGETS);
  controller = controllerManagedBy(manager)
    .for(WIDGET)
    .owns(CONFIG_MAP)
    .complete(widgetReconciler(manager.client));
  running = manager.start(stop.signal);
  await eventually(
    'the widgets to converge',
    async () => (await configMapNames()).length === WIDGETS && idle(),
    {
      timeoutMs: 60_000,
    },
  );
});

afterAll(async () => {
  stop.abort();
  await running;
  await cluster?.stop();
});

describe('watches under a running manager', () => {
  it('re-sync after a kube-apiserver restart, relist on 410 and deliver the deletes missed meanwhile', async () => {
    const etcd = new EtcdAccess(cluster.etcdEndpoint);
    const informer = (await manager.cache.informerFor(CONFIG_MAP)) as SharedInformer<KubeObject>;
    const expiredBefore = informer.stats.reduce((n, s) => n + s.expired, 0);
    const before = await writes();
    const victims = ['w-0001-config', 'w-0002-config', 'w-0003-config'];
    await cluster.restart('kube-apiserver', {
      // While the apiserver is down: delete objects behind its back, then compact etcd's history, so the
      // watch's resourceVersion is gone and only a relist can reveal the deletes.
      whileDown: async () => {
        for (const name of victims)
          expect(await etcd.deleteKey(`/registry/configmaps/${namespace}/${name}`)).toBe(1);
        await etcd.compact();
      },
    });
    await eventually(
      'the deleted ConfigMaps to be recreated',
      async () => {
        const names = await configMapNames();
        return victims.every((v) => names.includes(v)) && names.length === WIDGETS && idle();
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    expect(informer.stats.reduce((n, s) => n + s.expired, 0)).toBeGreaterThan(expiredBefore);
    // One apply per lost ConfigMap: nothing lost, nothing written twice.
    expect((await writes()) - before).toBe(victims.length);
  });

  it('keep working across an etcd restart', async () => {
    await cluster.restart('etcd', { downtimeMs: 2000 });
    const before = await writes();
    // Deletes go through a client of their own, so the manager's counter holds only the controller's writes.
    const other = directClient(cluster.kubeConfig);
    const victims = ['w-0004-config', 'w-0005-config'];
    for (const name of victims) {
      // Each victim is deleted exactly once; retried only while the API server cannot reach etcd yet.
      await eventually(
        `${name} to be deleted`,
        async () => {
          await other.delete({ ...CONFIG_MAP, name, namespace }).catch((error) => {
            if (!isNotFound(error)) throw error;
          });
          return true;
        },
        { timeoutMs: 60_000, intervalMs: 1000 },
      );
    }
    await other.close();
    await eventually(
      'the ConfigMaps deleted after the restart to be recreated',
      async () => {
        const names = await configMapNames();
        return victims.every((v) => names.includes(v)) && names.length === WIDGETS && idle();
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect((await writes()) - before).toBe(victims.length);
  });
});
