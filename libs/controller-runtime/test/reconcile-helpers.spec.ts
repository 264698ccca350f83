import { eventually, testKubeConfig, useTestNamespace } from '@opkit/test-cluster/vitest';
import { describe, expect, it } from 'vitest';
import { controllerManagedBy } from '../src/builder/builder.js';
import { findStatusCondition, setStatusCondition } from '../src/conditions/index.js';
import { ignoreNotFound, isNotFound } from '../src/errors/errors.js';
import { clientFinalizerOps, runWithFinalizer } from '../src/finalizer/index.js';
import { createLogger } from '../src/log/index.js';
import { Manager } from '../src/manager/manager.js';
import { RuntimeMetrics } from '../src/metrics/runtime-metrics.js';
import type { Condition, KubeObject } from '../src/object.js';
import { setControllerReference } from '../src/ownerref/index.js';
import { CONFIG_MAP, type ConfigMap, installWidgetCrd, WIDGET } from './support/widgets.js';

interface ConditionedWidget extends KubeObject {
  spec: { value: string };
  status?: { conditions?: Condition[] };
}

const ns = useTestNamespace({ prefix: 'helpers' });
const FINALIZER = 'test.opkit.dev/cleanup';

describe('reconcile helpers on a real API server', () => {
  it('runs finalizers, conditions, events, owner references and serves probes and metrics', async () => {
    const manager = new Manager({
      kubeConfig: testKubeConfig(),
      namespaces: [ns.name],
      logger: createLogger({ level: 'error' }),
      metrics: new RuntimeMetrics(),
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '127.0.0.1:0',
      fieldManager: 'helpers-test',
    });
    await installWidgetCrd(manager.apiClient);
    const events = manager.eventRecorder('widget-controller');
    const client = manager.client;
    let cleanups = 0;
    controllerManagedBy(manager)
      .for(WIDGET)
      .owns(CONFIG_MAP)
      .named('widget')
      .complete(async (req) => {
        let widget: ConditionedWidget;
        try {
          widget = await client.get<ConditionedWidget>(WIDGET, req.name, req.namespace);
        } catch (error) {
          if (isNotFound(error)) return;
          throw error;
        }
        await runWithFinalizer(widget, FINALIZER, clientFinalizerOps(client), {
          apply: async (live) => {
            const map: ConfigMap = {
              ...CONFIG_MAP,
              metadata: { name: live.metadata.name, namespace: live.metadata.namespace },
              data: { value: live.spec.value },
            };
            setControllerReference(live, map);
            await client.apply(map);
            const { conditions, changed } = setStatusCondition(live.status?.conditions, {
              type: 'Ready',
              status: 'True',
              reason: 'Configured',
              message: `value ${live.spec.value}`,
              observedGeneration: live.metadata.generation,
            });
            if (changed) {
              await client.patch(
                { ...WIDGET, name: req.name, namespace: req.namespace },
                { status: { conditions } },
                'merge',
                {
                  subresource: 'status',
                },
              );
              events.event(
                live,
                'Normal',
                'Configured',
                'Reconcile',
                `ConfigMap ${map.metadata.name} holds ${live.spec.value}`,
              );
            }
          },
          cleanup: async (dying) => {
            cleanups++;
            if (cleanups === 1) throw new Error('the external resource is still in use');
            // A status written while cleaning up changes the resourceVersion but not the finalizers: the
            // finalizer's removal right after must not conflict with it. A cleanup run again on a cached copy
            // the removal has not reached yet finds the widget gone.
            await ignoreNotFound(
              client.patch(
                { ...WIDGET, name: req.name, namespace: req.namespace },
                {
                  status: {
                    conditions: setStatusCondition(dying.status?.conditions, {
                      type: 'Ready',
                      status: 'False',
                      reason: 'Finalizing',
                      message: 'released',
                      observedGeneration: dying.metadata.generation,
                    }).conditions,
                  },
                },
                'merge',
                { subresource: 'status' },
              ),
            );
          },
        });
      });
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    const get = () => manager.apiClient.get<ConditionedWidget>(WIDGET, 'gadget', ns.name);

    await manager.apiClient.create({
      ...WIDGET,
      metadata: { name: 'gadget', namespace: ns.name },
      spec: { value: 'one' },
    });
    const ready = await eventually('the widget to be Ready', async () => {
      const w = await get();
      return findStatusCondition(w.status?.conditions, 'Ready')?.status === 'True' ? w : undefined;
    });
    expect(ready.metadata.finalizers).toEqual([FINALIZER]);
    const map = await manager.apiClient.get<ConfigMap>(CONFIG_MAP, 'gadget', ns.name);
    expect(map.metadata.ownerReferences).toEqual([
      {
        apiVersion: WIDGET.apiVersion,
        kind: 'Widget',
        name: 'gadget',
        uid: ready.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    const recorded = await eventually('the event to be recorded', async () => {
      const list = await manager.apiClient.list<
        KubeObject & { reason: string; regarding: { uid: string }; note: string }
      >({ apiVersion: 'events.k8s.io/v1', kind: 'Event' }, { namespace: ns.name });
      return list.items.find((e) => e.reason === 'Configured' && e.regarding.uid === ready.metadata.uid);
    });
    expect(recorded.note).toBe('ConfigMap gadget holds one');

    // A spec change moves observedGeneration; the status stays True, so lastTransitionTime does not move.
    const firstTransition = findStatusCondition(ready.status?.conditions, 'Ready')!.lastTransitionTime;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await manager.apiClient.patch(
      { ...WIDGET, name: 'gadget', namespace: ns.name },
      { spec: { value: 'two' } },
    );
    const updated = await eventually('observedGeneration 2', async () => {
      const c = findStatusCondition((await get()).status?.conditions, 'Ready');
      return c?.observedGeneration === 2 ? c : undefined;
    });
    expect(updated.lastTransitionTime).toBe(firstTransition);
    expect(updated.message).toBe('value two');

    // Probes and metrics, with controller-runtime's names.
    const metricsUrl = `http://127.0.0.1:${manager.metricsAddress!.port}/metrics`;
    const probes = `http://127.0.0.1:${manager.healthProbeAddress!.port}`;
    expect((await fetch(`${probes}/healthz`)).status).toBe(200);
    expect((await fetch(`${probes}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${probes}/readyz?verbose`)).text()).toContain('[+]informers ok');
    const text = await (await fetch(metricsUrl)).text();
    for (const series of [
      'controller_runtime_reconcile_total{controller="widget",result="success"}',
      'controller_runtime_reconcile_errors_total{controller="widget"}',
      'controller_runtime_reconcile_time_seconds_bucket{le="0.005",controller="widget"}',
      'controller_runtime_max_concurrent_reconciles{controller="widget"} 1',
      'controller_runtime_active_workers{controller="widget"}',
      'workqueue_adds_total{name="widget",controller="widget"}',
      'workqueue_depth{name="widget",controller="widget",priority="0"}',
      'rest_client_requests_total{code="200",method="GET"',
      'process_cpu_seconds_total',
      'opkit_events_dropped_total{controller="widget-controller"} 0',
    ]) {
      expect(text).toContain(series);
    }
    // Past the spam limit of one object, events are dropped, and counted where alerts can see them.
    for (let i = 0; i < 30; i++) events.event(ready, 'Normal', 'Burst', 'Test', `burst ${i}`);
    expect(events.dropped).toBeGreaterThan(0);
    expect(await (await fetch(metricsUrl)).text()).toContain(
      `opkit_events_dropped_total{controller="widget-controller"} ${events.dropped}`,
    );

    // Deletion: cleanup fails once (finalizer kept), succeeds on the retry (writing the status), the finalizer
    // goes at once, then the widget and, through its owner reference, the ConfigMap are gone.
    await manager.apiClient.delete({ ...WIDGET, name: 'gadget', namespace: ns.name });
    await eventually(
      'the widget to be gone',
      async () => {
        try {
          await get();
          return false;
        } catch (error) {
          return isNotFound(error);
        }
      },
      { timeoutMs: 30_000 },
    );
    expect(cleanups).toBeGreaterThanOrEqual(2);
    expect(await (await fetch(metricsUrl)).text()).not.toContain('code="409",method="PATCH"');
    // The garbage collector learns about new CRDs at its discovery resync (every 30 s).
    await eventually(
      'the ConfigMap to be garbage-collected',
      async () => {
        try {
          await manager.apiClient.get(CONFIG_MAP, 'gadget', ns.name);
          return false;
        } catch (error) {
          return isNotFound(error);
        }
      },
      { timeoutMs: 75_000, intervalMs: 500 },
    );
    stop.abort();
    await running;
  });
});
