import { eventually, testKubeConfig, useTestNamespace } from '@opkit/test-cluster/vitest';
import { describe, expect, it } from 'vitest';
import { controllerManagedBy } from '../src/builder/builder.js';
import type { Controller } from '../src/controller/controller.js';
import { ignoreNotFound } from '../src/errors/errors.js';
import { createLogger } from '../src/log/index.js';
import { Manager } from '../src/manager/manager.js';
import { RuntimeMetrics } from '../src/metrics/runtime-metrics.js';
import {
  CONFIG_MAP,
  type ConfigMap,
  createWidgets,
  installWidgetCrd,
  WIDGET,
  type Widget,
  widgetReconciler,
} from './support/widgets.js';

const ns = useTestNamespace({ prefix: 'converge' });

function widgetManager(
  seen: Set<string>,
  namespaces: readonly string[] = [ns.name],
): { manager: Manager; controller: Controller } {
  const manager = new Manager({
    kubeConfig: testKubeConfig(),
    namespaces,
    logger: createLogger({ level: 'error' }),
    metrics: new RuntimeMetrics({ processMetrics: false }),
    fieldManager: 'widget-controller',
  });
  const controller = controllerManagedBy(manager)
    .for(WIDGET)
    .owns(CONFIG_MAP)
    .withOptions({ maxConcurrentReconciles: 8 })
    .complete(widgetReconciler(manager.client, { onReconcile: (key) => seen.add(key) }));
  return { manager, controller };
}

const idle = (c: Controller) => c.queue.len() === 0 && c.queue.processing() === 0;

describe('a controller that owns ConfigMaps', () => {
  it('converges 500 custom resources, and a second pass writes nothing', async () => {
    const first = widgetManager(new Set());
    await installWidgetCrd(first.manager.apiClient);
    await createWidgets(first.manager.apiClient, ns.name, 500);

    const setupWrites = await first.manager.metrics.requestCount({ writesOnly: true });
    const stopFirst = new AbortController();
    const running = first.manager.start(stopFirst.signal);
    await eventually(
      'every widget to have its ConfigMap and status',
      async () => {
        const widgets = await first.manager.apiClient.list<Widget>(WIDGET, { namespace: ns.name });
        const maps = await first.manager.apiClient.list<ConfigMap>(CONFIG_MAP, {
          namespace: ns.name,
          labelSelector: '',
        });
        const done = widgets.items.filter((w) => w.status?.observedGeneration === w.metadata.generation);
        const owned = maps.items.filter((m) => m.metadata.ownerReferences?.[0]?.kind === 'Widget');
        return done.length === 500 && owned.length === 500;
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    // Exactly one apply and one status patch per widget: reads see our own writes, so nothing is written twice.
    const firstWrites = (await first.manager.metrics.requestCount({ writesOnly: true })) - setupWrites;
    expect(firstWrites).toBe(1000);
    // The cache keeps each ConfigMap's apply entry; what the applies have in common is held once.
    const cached = await first.manager.client.list<ConfigMap>(CONFIG_MAP, { namespace: ns.name });
    const appliedData = cached.items
      .filter((m) => m.metadata.ownerReferences?.[0]?.kind === 'Widget')
      .map((m) => {
        const entries = (m.metadata.managedFields ?? []) as { operation?: string; fieldsV1?: object }[];
        return (entries.find((e) => e.operation === 'Apply')?.fieldsV1 as Record<string, unknown>)?.[
          'f:data'
        ];
      });
    expect(appliedData).toHaveLength(500);
    expect(appliedData[0]).toBeDefined();
    expect(new Set(appliedData).size).toBe(1);
    stopFirst.abort();
    await running;

    // A fresh manager sees the converged world: every widget is reconciled again, and nothing is written.
    const seen = new Set<string>();
    const second = widgetManager(seen);
    const stopSecond = new AbortController();
    const again = second.manager.start(stopSecond.signal);
    await eventually(
      'the second pass to reconcile all 500',
      async () => seen.size === 500 && idle(second.controller),
      {
        timeoutMs: 60_000,
      },
    );
    expect(await second.manager.metrics.requestCount({ writesOnly: true })).toBe(0);
    const reconciles = await second.manager.metrics.reconcileTotal.get();
    const success = reconciles.values.find((v) => v.labels.result === 'success')?.value;
    expect(success).toBeGreaterThanOrEqual(500);
    stopSecond.abort();
    await again;
  });
});

describe('a controller watching many namespaces', () => {
  it('converges in each of 40 namespaces, with more watches open than connections kept for requests', async () => {
    const namespaces = Array.from({ length: 40 }, (_, i) => `${ns.name}-${i}`);
    const { manager } = widgetManager(new Set(), namespaces);
    await installWidgetCrd(manager.apiClient);
    const stop = new AbortController();
    let running: Promise<void> | undefined;
    try {
      for (const name of namespaces) {
        await manager.apiClient.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
        await createWidgets(manager.apiClient, name, 2);
      }
      // One watch per kind (Widget, ConfigMap) and namespace: 80 streams, each holding a connection.
      running = manager.start(stop.signal);
      await eventually(
        'every widget in every namespace to have its status',
        async () => {
          for (const name of namespaces) {
            const widgets = await manager.apiClient.list<Widget>(WIDGET, { namespace: name });
            if (widgets.items.some((w) => w.status?.observedGeneration !== w.metadata.generation))
              return false;
          }
          return true;
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
    } finally {
      stop.abort();
      await running;
      for (const name of namespaces) {
        await ignoreNotFound(manager.apiClient.delete({ apiVersion: 'v1', kind: 'Namespace', name }));
      }
    }
  });
});
