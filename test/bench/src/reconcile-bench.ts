import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { createLogger, type Reconciler } from '@opkit/controller-runtime';
import { newCache, type StandaloneCache } from '@opkit/controller-runtime/cache';
import { directClient } from '@opkit/controller-runtime/client';
import { Controller } from '@opkit/controller-runtime/controller';
import { RuntimeMetrics } from '@opkit/controller-runtime/metrics';
import { withTimeout } from './stats.js';

/** `noop`: returns at once. `setImmediate`: awaits one turn of the event loop, like a tiny bit of async I/O. */
export type ReconcilerKind = 'noop' | 'setImmediate';

export interface ReconcileRun {
  readonly workers: number;
  readonly reconciler: ReconcilerKind;
  readonly reconciles: number;
  /** Adding the keys to the queue (before the controller starts; not part of the rate). */
  readonly enqueueMs: number;
  /** From `controller.start()` until every key was reconciled and the workers returned. */
  readonly elapsedMs: number;
  readonly reconcilesPerSecond: number;
}

/**
 * A cache for controllers without watches: `Controller.start` only asks the cache for informers of its watches,
 * so this one is never used and its kubeconfig points nowhere.
 */
export function offlineCache(): StandaloneCache {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'offline', server: 'https://127.0.0.1:9', skipTLSVerify: true }],
    users: [{ name: 'offline' }],
    contexts: [{ name: 'offline', cluster: 'offline', user: 'offline' }],
    currentContext: 'offline',
  });
  return newCache({
    client: directClient(kubeConfig),
    namespaces: [],
  });
}

/**
 * Runs a real Controller (queue, workers, metrics, log context, result handling) with no watches: `keys`
 * distinct keys are added to `controller.queue` first, then the controller is started and timed until the
 * reconciler has seen every key once and the workers have returned.
 */
export async function reconcileRun(options: {
  readonly workers: number;
  readonly reconciler: ReconcilerKind;
  readonly keys: number;
  readonly cache: StandaloneCache;
  readonly timeoutMs: number;
}): Promise<ReconcileRun> {
  const { workers, keys } = options;
  const metrics = new RuntimeMetrics({ processMetrics: false });
  const warnings: string[] = [];
  // Warn level: the two info lines per start are skipped, but every reconcile still builds its child logger.
  const logger = createLogger({ level: 'warn', sink: (line) => warnings.push(line) });
  const stop = new AbortController();
  let reconciled = 0;
  const count = (): void => {
    if (++reconciled === keys) stop.abort();
  };
  const reconciler: Reconciler =
    options.reconciler === 'noop'
      ? async () => {
          count();
        }
      : async () => {
          await nextTurn();
          count();
        };
  const controller = new Controller(
    { name: `bench-${options.reconciler}-${workers}`, maxConcurrentReconciles: workers },
    reconciler,
    { cache: options.cache, metrics, logger },
  );

  const enqueueStart = performance.now();
  for (let i = 0; i < keys; i++) controller.queue.add(`bench/object-${i}`);
  const started = performance.now();
  const run = controller.start(stop.signal);
  try {
    await withTimeout(run, options.timeoutMs, `${keys} reconciles with ${workers} worker(s)`);
  } catch (error) {
    stop.abort();
    await run.catch(() => {});
    throw error;
  }
  const elapsedMs = performance.now() - started;

  const totals = await metrics.reconcileTotal.get();
  const successes = totals.values.find((v) => v.labels.result === 'success')?.value ?? 0;
  if (reconciled !== keys || successes !== keys || warnings.length > 0) {
    throw new Error(
      `reconcile run inconsistent: ${reconciled} reconciled, ${successes} successes of ${keys} keys` +
        (warnings.length > 0 ? `; first log line: ${warnings[0]}` : ''),
    );
  }
  return {
    workers,
    reconciler: options.reconciler,
    reconciles: keys,
    enqueueMs: started - enqueueStart,
    elapsedMs,
    reconcilesPerSecond: keys / (elapsedMs / 1000),
  };
}
