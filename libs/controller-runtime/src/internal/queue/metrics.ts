import type { RuntimeMetrics } from '../../metrics/runtime-metrics.js';

/** A snapshot of the work handed out by a work queue's `get` and not yet `done`. */
export interface UnfinishedWork {
  /** Sum over in-flight items of how long each has been processed so far. */
  unfinishedSeconds: number;
  /** How long the oldest in-flight item has been processed. */
  longestRunningSeconds: number;
}

/**
 * What a work queue reports, mirroring client-go's workqueue metrics. Kept as plain hooks so the queue does not
 * depend on prom-client and tests can observe it directly.
 */
export interface WorkQueueMetrics {
  /** An item became ready to be handed out (a new ready item, or a delayed one whose time came). */
  add(): void;
  /** The number of ready items of `priority` changed by `delta`. */
  depth(priority: number, delta: number): void;
  /** An item was handed out, `s` seconds after it became ready. */
  queueLatencySeconds(s: number): void;
  /** An item was marked done, `s` seconds after it was handed out. */
  workDurationSeconds(s: number): void;
  /** An add asked for a non-zero delay (a requeue-after or a rate-limited retry). */
  retry(): void;
  /** Called once, by the queue's constructor, with a getter for the in-flight work, to be read on scrape. */
  unfinished(state: () => UnfinishedWork): void;
}

/** Metrics that go nowhere: the queue's default. */
export const noopQueueMetrics: WorkQueueMetrics = {
  add: () => {},
  depth: () => {},
  queueLatencySeconds: () => {},
  workDurationSeconds: () => {},
  retry: () => {},
  unfinished: () => {},
};

/** The gauges' `collect` property: prom-client calls it on every scrape, but types it only as a constructor option. */
interface Collectable {
  collect?: () => void | Promise<void>;
}

// Per RuntimeMetrics, the unfinished-work getters of its queues, by controller name (a queue re-created for the
// same controller replaces its predecessor's getter rather than piling up).
const unfinishedGetters = new WeakMap<RuntimeMetrics, Map<string, () => UnfinishedWork>>();

function registerUnfinished(metrics: RuntimeMetrics, controller: string, state: () => UnfinishedWork): void {
  let getters = unfinishedGetters.get(metrics);
  if (!getters) {
    const registered = new Map<string, () => UnfinishedWork>();
    unfinishedGetters.set(metrics, registered);
    getters = registered;
    // Read on scrape rather than on get/done: a reconcile that hangs must show a growing value even though the
    // queue sees no activity. client-go polls every 500 ms for the same reason; a scrape hook needs no timer.
    const refresh = (): void => {
      for (const [name, getter] of registered) {
        const labels = { name, controller: name };
        const { unfinishedSeconds, longestRunningSeconds } = getter();
        metrics.unfinishedWork.set(labels, unfinishedSeconds);
        metrics.longestRunningProcessor.set(labels, longestRunningSeconds);
      }
    };
    // Both gauges are scraped separately; either may come first, so both refresh. Any existing hook is kept.
    for (const gauge of [metrics.unfinishedWork, metrics.longestRunningProcessor] as Collectable[]) {
      const previous = gauge.collect;
      gauge.collect = () => {
        refresh();
        return previous?.();
      };
    }
  }
  getters.set(controller, state);
}

/**
 * Maps a queue's hooks onto controller-runtime's `workqueue_*` series in `metrics`. As in controller-runtime, the
 * queue's `name` label and the `controller` label both carry the controller name.
 */
export function prometheusQueueMetrics(metrics: RuntimeMetrics, controller: string): WorkQueueMetrics {
  const labels = { name: controller, controller };
  // Series exist (at 0) from the start, so rate() and absent() behave before the first event.
  metrics.queueAdds.inc(labels, 0);
  metrics.queueRetries.inc(labels, 0);
  metrics.queueDepth.inc({ ...labels, priority: '0' }, 0);
  return {
    add: () => metrics.queueAdds.inc(labels),
    depth: (priority, delta) => metrics.queueDepth.inc({ ...labels, priority: String(priority) }, delta),
    queueLatencySeconds: (s) => metrics.queueLatency.observe(labels, s),
    workDurationSeconds: (s) => metrics.workDuration.observe(labels, s),
    retry: () => metrics.queueRetries.inc(labels),
    unfinished: (state) => registerUnfinished(metrics, controller, state),
  };
}
