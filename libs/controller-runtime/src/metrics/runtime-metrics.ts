import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** How often the process metrics sample the event loop's delay. */
const EVENT_LOOP_SAMPLE_MS = 100;

/** Reconcile outcomes, as controller-runtime labels them. */
export type ReconcileResultLabel = 'success' | 'error' | 'requeue' | 'requeue_after';

// controller-runtime: 40 buckets from 5 ms to 60 s (pkg/internal/controller/metrics).
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5,
  1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
// client-go workqueue: ExponentialBuckets(1e-8, 10, 12).
const QUEUE_BUCKETS = Array.from({ length: 12 }, (_, i) => 1e-8 * 10 ** i);

/** How each controller reconciles: outcomes, duration and workers (pkg/internal/controller/metrics). */
function reconcileMetrics(registers: Registry[]) {
  return {
    reconcileTotal: new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    }),
    reconcileErrors: new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    }),
    terminalReconcileErrors: new Counter({
      name: 'controller_runtime_terminal_reconcile_errors_total',
      help: 'Total number of terminal reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    }),
    reconcilePanics: new Counter({
      name: 'controller_runtime_reconcile_panics_total',
      help: 'Total number of reconciliation panics per controller',
      labelNames: ['controller'],
      registers,
    }),
    reconcileTimeouts: new Counter({
      name: 'controller_runtime_reconcile_timeouts_total',
      help: 'Total number of reconciliation timeouts per controller',
      labelNames: ['controller'],
      registers,
    }),
    reconcileTime: new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: RECONCILE_BUCKETS,
      registers,
    }),
    maxConcurrentReconciles: new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    }),
    activeWorkers: new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    }),
  };
}

/** Each controller's work queue, as client-go's workqueue reports it. */
function workqueueMetrics(registers: Registry[]) {
  return {
    queueDepth: new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue by workqueue and priority',
      labelNames: ['name', 'controller', 'priority'],
      registers,
    }),
    queueAdds: new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name', 'controller'],
      registers,
    }),
    queueLatency: new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name', 'controller'],
      buckets: QUEUE_BUCKETS,
      registers,
    }),
    workDuration: new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames: ['name', 'controller'],
      buckets: QUEUE_BUCKETS,
      registers,
    }),
    unfinishedWork: new Gauge({
      name: 'workqueue_unfinished_work_seconds',
      help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration",
      labelNames: ['name', 'controller'],
      registers,
    }),
    longestRunningProcessor: new Gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'How many seconds has the longest running processor for workqueue been running',
      labelNames: ['name', 'controller'],
      registers,
    }),
    queueRetries: new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name', 'controller'],
      registers,
    }),
  };
}

/** Requests to the API server, as client-go's REST client counts them. */
function restClientMetrics(registers: Registry[]) {
  return {
    restClientRequests: new Counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests, partitioned by status code, method, and host',
      labelNames: ['code', 'method', 'host'],
      registers,
    }),
  };
}

/** Leader election, as client-go reports it. */
function leaderElectionMetrics(registers: Registry[]) {
  return {
    leaderElectionMasterStatus: new Gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master',
      labelNames: ['name'],
      registers,
    }),
    leaderElectionSlowpath: new Counter({
      name: 'leader_election_slowpath_total',
      help: 'Total number of slow path exercised in renewing leader leases',
      labelNames: ['name'],
      registers,
    }),
  };
}

/** Admission requests served (pkg/webhook/internal/metrics); the latency histogram uses Prometheus' default buckets. */
function webhookMetrics(registers: Registry[]) {
  return {
    webhookRequests: new Counter({
      name: 'controller_runtime_webhook_requests_total',
      help: 'Total number of admission requests by HTTP status code.',
      labelNames: ['webhook', 'code'],
      registers,
    }),
    webhookLatency: new Histogram({
      name: 'controller_runtime_webhook_latency_seconds',
      help: 'Histogram of the latency of processing admission requests',
      labelNames: ['webhook'],
      registers,
    }),
    webhookRequestsInFlight: new Gauge({
      name: 'controller_runtime_webhook_requests_in_flight',
      help: 'Current number of admission requests being served.',
      labelNames: ['webhook'],
      registers,
    }),
    webhookPanics: new Counter({
      name: 'controller_runtime_webhook_panics_total',
      help: 'Total number of webhook panics',
      registers,
    }),
  };
}

/**
 * Events a manager's recorders dropped. opkit's own: client-go's recorder drops the same events (over its spam
 * limit, or while its queue is full) and only logs them.
 */
function eventMetrics(registers: Registry[]) {
  return {
    eventsDropped: new Counter({
      name: 'opkit_events_dropped_total',
      help: 'Total number of events not sent: over the per-object spam limit, or while 1000 waited to be sent.',
      labelNames: ['controller'],
      registers,
    }),
  };
}

/**
 * The metrics of one manager, in a registry of its own (two managers in one process do not collide). Names and
 * labels are controller-runtime's, so existing dashboards and alerts work unchanged; `opkit_events_dropped_total`
 * is the one of our own.
 */
export class RuntimeMetrics {
  readonly registry: Registry;

  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly terminalReconcileErrors: Counter<'controller'>;
  readonly reconcilePanics: Counter<'controller'>;
  readonly reconcileTimeouts: Counter<'controller'>;
  readonly reconcileTime: Histogram<'controller'>;
  readonly maxConcurrentReconciles: Gauge<'controller'>;
  readonly activeWorkers: Gauge<'controller'>;

  readonly queueDepth: Gauge<'name' | 'controller' | 'priority'>;
  readonly queueAdds: Counter<'name' | 'controller'>;
  readonly queueLatency: Histogram<'name' | 'controller'>;
  readonly workDuration: Histogram<'name' | 'controller'>;
  readonly unfinishedWork: Gauge<'name' | 'controller'>;
  readonly longestRunningProcessor: Gauge<'name' | 'controller'>;
  readonly queueRetries: Counter<'name' | 'controller'>;

  readonly restClientRequests: Counter<'code' | 'method' | 'host'>;
  readonly leaderElectionMasterStatus: Gauge<'name'>;
  readonly leaderElectionSlowpath: Counter<'name'>;

  readonly webhookRequests: Counter<'webhook' | 'code'>;
  readonly webhookLatency: Histogram<'webhook'>;
  readonly webhookRequestsInFlight: Gauge<'webhook'>;
  readonly webhookPanics: Counter;

  readonly eventsDropped: Counter<'controller'>;

  constructor(options: { registry?: Registry; processMetrics?: boolean } = {}) {
    this.registry = options.registry ?? new Registry();
    const registers = [this.registry];
    const reconcile = reconcileMetrics(registers);
    this.reconcileTotal = reconcile.reconcileTotal;
    this.reconcileErrors = reconcile.reconcileErrors;
    this.terminalReconcileErrors = reconcile.terminalReconcileErrors;
    this.reconcilePanics = reconcile.reconcilePanics;
    this.reconcileTimeouts = reconcile.reconcileTimeouts;
    this.reconcileTime = reconcile.reconcileTime;
    this.maxConcurrentReconciles = reconcile.maxConcurrentReconciles;
    this.activeWorkers = reconcile.activeWorkers;
    const workqueue = workqueueMetrics(registers);
    this.queueDepth = workqueue.queueDepth;
    this.queueAdds = workqueue.queueAdds;
    this.queueLatency = workqueue.queueLatency;
    this.workDuration = workqueue.workDuration;
    this.unfinishedWork = workqueue.unfinishedWork;
    this.longestRunningProcessor = workqueue.longestRunningProcessor;
    this.queueRetries = workqueue.queueRetries;
    const restClient = restClientMetrics(registers);
    this.restClientRequests = restClient.restClientRequests;
    const leaderElection = leaderElectionMetrics(registers);
    this.leaderElectionMasterStatus = leaderElection.leaderElectionMasterStatus;
    this.leaderElectionSlowpath = leaderElection.leaderElectionSlowpath;
    const webhook = webhookMetrics(registers);
    this.webhookRequests = webhook.webhookRequests;
    this.webhookLatency = webhook.webhookLatency;
    this.webhookRequestsInFlight = webhook.webhookRequestsInFlight;
    this.webhookPanics = webhook.webhookPanics;
    this.eventsDropped = eventMetrics(registers).eventsDropped;
    // Node's process metrics. The event loop delay is sampled every 100 ms, not prom-client's default 10 ms: a
    // timer firing 100 times a second cost an idle operator 7 ms of CPU every second.
    if (options.processMetrics ?? true) {
      collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    }
  }

  /** Pre-initialises a controller's series to 0, as controller-runtime does, so rates exist from the start. */
  registerController(controller: string, maxConcurrentReconciles: number): void {
    for (const result of ['success', 'error', 'requeue', 'requeue_after'] as const) {
      this.reconcileTotal.inc({ controller, result }, 0);
    }
    this.reconcileErrors.inc({ controller }, 0);
    this.terminalReconcileErrors.inc({ controller }, 0);
    this.reconcilePanics.inc({ controller }, 0);
    this.reconcileTimeouts.inc({ controller }, 0);
    this.maxConcurrentReconciles.set({ controller }, maxConcurrentReconciles);
    this.activeWorkers.set({ controller }, 0);
  }

  /** Total API requests issued, optionally only writes (anything but GET/LIST/WATCH). */
  async requestCount(filter: { writesOnly?: boolean } = {}): Promise<number> {
    const metric = await this.restClientRequests.get();
    return metric.values
      .filter((v) => !filter.writesOnly || !['GET', 'LIST', 'WATCH'].includes(String(v.labels.method)))
      .reduce((sum, v) => sum + v.value, 0);
  }
}
