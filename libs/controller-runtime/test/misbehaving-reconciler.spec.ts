import { eventually, testKubeConfig, useTestNamespace } from '@opkit/test-cluster/vitest';
import { describe, expect, it } from 'vitest';
import { controllerManagedBy } from '../src/builder/builder.js';
import { createLogger } from '../src/log/index.js';
import { Manager } from '../src/manager/manager.js';
import { RuntimeMetrics } from '../src/metrics/runtime-metrics.js';
import { TerminalError } from '../src/reconcile/reconcile.js';
import { installWidgetCrd, WIDGET } from './support/widgets.js';

const ns = useTestNamespace({ prefix: 'misbehave' });

describe('a reconciler that misbehaves', () => {
  it('is contained, counted and retried with back-off; the manager and the other keys carry on', async () => {
    const metrics = new RuntimeMetrics({ processMetrics: false });
    const manager = new Manager({
      kubeConfig: testKubeConfig(),
      namespaces: [ns.name],
      logger: createLogger({ level: 'error', sink: () => {} }),
      metrics,
    });
    await installWidgetCrd(manager.apiClient);
    const attempts = new Map<string, number>();
    controllerManagedBy(manager)
      .for(WIDGET)
      .named('misbehaving')
      .withOptions({ maxConcurrentReconciles: 4, reconcileTimeoutMs: 300 })
      // biome-ignore lint/suspicious/noExplicitAny: the test returns what a buggy JavaScript reconciler might
      .complete((async (req: { name: string }): Promise<any> => {
        attempts.set(req.name, (attempts.get(req.name) ?? 0) + 1);
        switch (req.name) {
          case 'throws':
            throw new Error('the backing service is down');
          case 'crashes':
            return (undefined as unknown as { spec: { size: number } }).spec.size; // a TypeError, like a Go panic
          case 'garbage':
            return 'done!';
          case 'hangs':
            return new Promise(() => {});
          case 'gives-up':
            throw new TerminalError('spec.value is not supported');
          default:
            return undefined;
        }
      }) as never);
    const names = ['throws', 'crashes', 'garbage', 'hangs', 'gives-up', 'fine'];
    for (const name of names) {
      await manager.apiClient.create({
        ...WIDGET,
        metadata: { name, namespace: ns.name },
        spec: { value: name },
      });
    }
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    const counter = async (
      metric: 'reconcileErrors' | 'reconcilePanics' | 'reconcileTimeouts' | 'terminalReconcileErrors',
    ) => (await metrics[metric].get()).values.find((v) => v.labels.controller === 'misbehaving')?.value ?? 0;

    await eventually('every failure kind to be seen', async () => (await counter('reconcileTimeouts')) >= 2, {
      timeoutMs: 20_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 3000));

    expect(attempts.get('fine')).toBe(1);
    expect(attempts.get('gives-up')).toBe(1); // terminal: not retried
    expect(await counter('terminalReconcileErrors')).toBe(1);
    expect(await counter('reconcilePanics')).toBeGreaterThanOrEqual(1);
    // Retried with exponential back-off (5 ms, 10 ms, … doubling): a dozen tries in a few seconds, not thousands.
    for (const name of ['throws', 'crashes', 'garbage']) {
      expect(attempts.get(name)).toBeGreaterThanOrEqual(5);
      expect(attempts.get(name)).toBeLessThanOrEqual(16);
    }
    expect(attempts.get('hangs')).toBeGreaterThanOrEqual(2);
    const errors = await counter('reconcileErrors');
    const total = [...attempts.entries()].filter(([n]) => n !== 'fine').reduce((sum, [, n]) => sum + n, 0);
    // Every failed attempt is an error (the hanging one counts once it times out).
    expect(errors).toBeGreaterThanOrEqual(total - 4);
    const retries = (await metrics.queueRetries.get()).values.find(
      (v) => v.labels.controller === 'misbehaving',
    )?.value;
    expect(retries).toBeGreaterThan(15);

    stop.abort();
    await running; // the manager shuts down cleanly despite a reconcile that never returns
  });
});
