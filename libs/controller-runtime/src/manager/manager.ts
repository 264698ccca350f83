import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { CachedClient } from '../client/cached-client.js';
import { type DirectClient, directClientOn } from '../client/direct-client.js';
import { isTransient } from '../errors/errors.js';
import { EventRecorder, type EventsV1Event } from '../events/index.js';
import { type ByObject, type Cache, InformerCache } from '../internal/cache/informer-cache.js';
import { watchNamespacesFromEnv } from '../internal/cache/watch-namespaces.js';
import { type Checker, ProbeServer, parseBindAddress } from '../internal/healthz/probe-server.js';
import { LeaderElectionLostError, LeaderElector } from '../internal/leaderelection/leader-elector.js';
import { deletionMessage, LeaderForLife } from '../internal/leaderelection/leader-for-life.js';
import {
  failureReason,
  RetryLogGate,
  type RetryTransientOptions,
} from '../internal/retry/transient-retry.js';
import { type ClusterConnection, loadKubeConfig } from '../internal/transport/kubeconfig.js';
import { Transport } from '../internal/transport/transport.js';
import { createLogger, type LogFields, type Logger } from '../log/index.js';
import { authenticationAndAuthorization } from '../metrics/auth-filter.js';
import { RuntimeMetrics } from '../metrics/runtime-metrics.js';
import { CertWatcher } from '../serving/cert-watcher.js';
import { type CertificateAndKey, selfSignedCertificate } from '../serving/certificates.js';
import { WebhookServer, type WebhookServerOptions } from '../webhook/server.js';

/** Something the manager runs: a controller, a server, a periodic task. */
export interface Runnable {
  start(signal: AbortSignal): Promise<void>;
  /** Runnables that need leadership start only once this replica leads. @default true */
  readonly needLeaderElection?: boolean;
}

/**
 * Leader election on a coordination.k8s.io Lease (the default, as controller-runtime's): the leader renews
 * the lease every retry period, and when it stops (crash, partition, shutdown) another replica takes over
 * within the lease duration.
 */
export interface LeaseLeaderElectionConfig {
  /** @default 'lease' */
  readonly mode?: 'lease';
  /** Lease name, unique per operator. */
  readonly id: string;
  /** Namespace of the Lease. @default `POD_NAMESPACE`, else the service account's namespace, else `default` */
  readonly namespace?: string;
  readonly identity?: string;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  /** Release the lease on a graceful stop. @default true */
  readonly releaseOnCancel?: boolean;
}

/**
 * Leader for life, as operator-lib's `leader.Become`: the replica whose create of the ConfigMap `id` succeeds
 * leads until its Pod is gone — the ConfigMap is owned by the Pod, so the garbage collector deletes it after
 * the Pod; there are no renewals. Needs `POD_NAME` (downward API) and RBAC on configmaps (get, create,
 * delete), pods (get, delete) and, to hand over from a Pod on a NotReady node, nodes (get). Outside a
 * cluster without a Pod name it does nothing: the replica leads at once. In a cluster without one, `start`
 * fails: two replicas would both lead.
 */
export interface ForLifeLeaderElectionConfig {
  readonly mode: 'for-life';
  /** The lock ConfigMap's name, unique per operator. */
  readonly id: string;
  /** Namespace of the lock and of this replica's Pod. @default as for the Lease */
  readonly namespace?: string;
  /** This replica's Pod. @default `POD_NAME` */
  readonly podName?: string;
  /** Cap of the doubling wait (from 1 s) between looks at a held lock. @default 16000 */
  readonly maxBackoffMs?: number;
  /**
   * Whether this process runs in a cluster's Pod, which decides what a missing Pod name means.
   * @default whether the service account's namespace file exists
   */
  readonly inCluster?: boolean;
}

export type LeaderElectionConfig = LeaseLeaderElectionConfig | ForLifeLeaderElectionConfig;

export interface ManagerOptions {
  /** @default `$KUBECONFIG`, `~/.kube/config` or in-cluster */
  readonly kubeConfig?: ClusterConnection;
  /** Namespaces to watch; empty = all. @default from `WATCH_NAMESPACE` */
  readonly namespaces?: readonly string[];
  readonly cache?: {
    readonly byObject?: ByObject;
    readonly inactivityTimeoutMs?: number;
  };
  /** `[host]:port` for `/metrics`; `0` or unset disables it. */
  readonly metricsBindAddress?: string;
  /**
   * Serve `/metrics` over HTTPS to authenticated and authorized callers only (TokenReview and
   * SubjectAccessReview of `get` on the non-resource URL `/metrics`), as kubebuilder's scaffold does with
   * `--metrics-secure`. @default false
   */
  readonly metricsSecure?: boolean;
  /**
   * With secure serving: a directory with `tls.crt` and `tls.key`, read again when they change (as the webhook
   * server's); a self-signed certificate otherwise.
   */
  readonly metricsCertPath?: string;
  /** `[host]:port` for `/healthz` and `/readyz`; `0` or unset disables it. */
  readonly healthProbeBindAddress?: string;
  /** Off when unset. */
  readonly leaderElection?: LeaderElectionConfig;
  /** The webhook server's port and certificate; it starts only when a webhook is registered. */
  readonly webhook?: Omit<WebhookServerOptions, 'metrics' | 'logger'>;
  /** How long in-flight reconciles may take to finish on shutdown. @default 30000 */
  readonly gracefulShutdownTimeoutMs?: number;
  /** Field manager for writes and server-side apply. */
  readonly fieldManager?: string;
  readonly logger?: Logger;
  readonly metrics?: RuntimeMetrics;
}

/** Mounted into every Pod that has a service account token: its presence means running in a cluster. */
const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

function defaultLeaseNamespace(): string {
  if (process.env.POD_NAMESPACE) return process.env.POD_NAMESPACE;
  try {
    const fs = process.getBuiltinModule?.('node:fs');
    const ns = fs?.readFileSync(SERVICE_ACCOUNT_NAMESPACE, 'utf8').trim();
    if (ns) return ns;
  } catch {
    // not in a pod
  }
  return 'default';
}

/** As operator-lib decides it: the service account's namespace file is there. */
function runningInCluster(): boolean {
  return process.getBuiltinModule?.('node:fs')?.existsSync(SERVICE_ACCOUNT_NAMESPACE) ?? false;
}

/** Why leader for life cannot start here: in a cluster, a replica without a Pod name would lead beside another. */
const FOR_LIFE_NEEDS_POD_NAME =
  'leader election for life needs POD_NAME (set it from the downward API: fieldRef metadata.name)';

/**
 * Runs an operator: one shared cache and client, the controllers, leader election, probes and metrics.
 * Caches and non-leader runnables run on every replica; controllers only while this replica holds the lease,
 * and they stop the moment it is lost.
 */
export class Manager {
  readonly metrics: RuntimeMetrics;
  readonly logger: Logger;
  readonly transport: Transport;
  /** Uncached access to the API server. */
  readonly apiClient: DirectClient;
  /** The shared informer cache, read-only: its informers write to it, and `client` with what it wrote. */
  readonly cache: Cache;
  /** Cached reads, direct writes. */
  readonly client: CachedClient;
  readonly namespaces: readonly string[];
  /** Resolves once this replica leads (at once without leader election). */
  readonly elected: Promise<void>;
  /** Addresses actually bound (after start), e.g. to find a port-0 server. */
  metricsAddress: AddressInfo | undefined;
  healthProbeAddress: AddressInfo | undefined;

  readonly #informers: InformerCache;
  readonly #o: ManagerOptions;
  readonly #runnables: Runnable[] = [];
  readonly #healthz = new Map<string, Checker>([['ping', () => {}]]);
  readonly #readyz = new Map<string, Checker>();
  readonly #recorders: EventRecorder[] = [];
  #webhookServer: WebhookServer | undefined;
  #resolveElected!: () => void;
  #started = false;
  /** Retries past transient failures are logged once per operation and reason, then at most every 30 s. */
  readonly #retryLog = new RetryLogGate();
  /** While `start` runs: how the clients' discovery waits out transient failures (until it returns). */
  #discoveryRetry: RetryTransientOptions | undefined;

  constructor(options: ManagerOptions = {}) {
    this.#o = options;
    this.metrics = options.metrics ?? new RuntimeMetrics();
    this.logger = options.logger ?? createLogger();
    this.transport = new Transport(options.kubeConfig ?? loadKubeConfig(), this.metrics);
    // Each distinct warning once (deprecated versions would otherwise repeat on every request).
    const warned = new Set<string>();
    this.transport.onWarning = (warning) => {
      if (warned.has(warning) || warned.size >= 1_000) return;
      warned.add(warning);
      this.logger.warn('API server warning', { warning });
    };
    this.apiClient = directClientOn(this.transport, { discoveryRetry: () => this.#discoveryRetry });
    this.namespaces = options.namespaces ?? watchNamespacesFromEnv();
    const unselected = new Set<string>();
    const informers = new InformerCache({
      client: this.apiClient,
      namespaces: this.namespaces,
      byObject: options.cache?.byObject,
      inactivityTimeoutMs: options.cache?.inactivityTimeoutMs,
      onError: (error, type) =>
        this.#retrying(`list and watch of ${type.kind}`, error, 'watch failed; retrying', {
          kind: type.kind,
        }),
      onRetry: (failure) =>
        this.#retrying(failure.operation, failure.error, 'discovery failed; retrying', {
          retryInMs: failure.retryInMs,
        }),
      // Once per kind: an owned object without the labels its cache selects is rewritten on every reconcile.
      onUnselectedWrite: (obj, type, labelSelector) => {
        if (unselected.has(type.kind)) return;
        unselected.add(type.kind);
        this.logger.warn('wrote an object the cache does not select; controllers will not see it', {
          kind: type.kind,
          name: obj.metadata.name,
          namespace: obj.metadata.namespace,
          labelSelector,
        });
      },
    });
    this.#informers = informers;
    this.cache = informers;
    this.client = new CachedClient(informers, this.apiClient, options.fieldManager ?? 'opkit-manager');
    this.elected = new Promise((resolve) => {
      this.#resolveElected = resolve;
    });
    this.#readyz.set('informers', async () => {
      if (!(await this.cache.hasSynced())) throw new Error('caches not synced');
    });
  }

  /**
   * Reports a failure that will be retried: a transient one (the API server is starting, overloaded or
   * restarting) at info level through the retry log's rate limit, any other as a warning `message`.
   */
  #retrying(operation: string, error: Error, message: string, fields: LogFields = {}): void {
    if (!isTransient(error)) {
      this.logger.warn(message, { ...fields, error: error.message });
      return;
    }
    const reason = failureReason(error);
    if (!this.#retryLog.admit(operation, reason)) return;
    this.logger.info('API server unavailable; retrying', {
      ...fields,
      operation,
      reason,
      error: error.message,
    });
  }

  add(runnable: Runnable): void {
    if (this.#started) throw new Error('runnables must be added before the manager starts');
    this.#runnables.push(runnable);
  }

  /**
   * Turns the webhook server on (once; later calls return the same server) and returns it: it runs on every
   * replica, leader or not, and the `webhook` readiness check passes only while it answers TLS handshakes.
   * Readiness then no longer waits for the caches: they may need this very server (the API server converts
   * objects stored at another version through the conversion webhook to list them), and the API server
   * reaches it through a Service, which routes only to ready pods — waiting would keep both from ever
   * happening. Call it before `start`.
   */
  enableWebhooks(): WebhookServer {
    if (!this.#webhookServer) {
      const server = new WebhookServer({ ...this.#o.webhook, metrics: this.metrics, logger: this.logger });
      this.add(server);
      this.#readyz.delete('informers');
      this.addReadyzCheck('webhook', server.startedChecker);
      this.#webhookServer = server;
    }
    return this.#webhookServer;
  }

  /** The webhook server once `enableWebhooks` turned it on; undefined before. */
  get webhookServer(): WebhookServer | undefined {
    return this.#webhookServer;
  }

  addHealthzCheck(name: string, check: Checker): void {
    this.#healthz.set(name, check);
  }

  addReadyzCheck(name: string, check: Checker): void {
    this.#readyz.set(name, check);
  }

  /** An events.k8s.io/v1 recorder reporting as `name`. */
  eventRecorder(name: string): EventRecorder {
    const api = this.apiClient;
    const dropped = this.metrics.eventsDropped.labels({ controller: name });
    dropped.inc(0); // the series exists from the start, so a rate of it does
    const recorder = new EventRecorder({
      reportingController: name,
      reportingInstance: `${name}-${process.pid}`,
      sink: {
        create: (namespace: string, event: EventsV1Event) =>
          api.create<EventsV1Event>({ ...event, metadata: { ...event.metadata, namespace } }),
        patch: (namespace: string, eventName: string, patch: unknown) =>
          api.patch<EventsV1Event>(
            { apiVersion: 'events.k8s.io/v1', kind: 'Event', name: eventName, namespace },
            patch,
            'merge',
          ),
      },
      onError: (error: Error) => this.logger.debug('event not recorded', { error: error.message }),
      onDrop: () => dropped.inc(),
    });
    this.#recorders.push(recorder);
    return recorder;
  }

  /** The metrics server's self-signed certificate for this host, when no `metricsCertPath` is given. */
  #selfSignedMetricsCertificate(): CertificateAndKey {
    const hosts = ['localhost', '127.0.0.1', hostname(), ...(process.env.POD_IP ? [process.env.POD_IP] : [])];
    return selfSignedCertificate({ commonName: `${this.#o.fieldManager ?? 'opkit-manager'}-metrics`, hosts });
  }

  /**
   * Starts the metrics and health-probe servers the options ask for; returns them, to be closed at the end.
   * A metrics certificate from `metricsCertPath` is reloaded until `signal` aborts.
   */
  async #serve(signal: AbortSignal): Promise<ProbeServer[]> {
    const log = this.logger;
    const servers: ProbeServer[] = [];
    const metricsBind = parseBindAddress(this.#o.metricsBindAddress);
    const probeBind = parseBindAddress(this.#o.healthProbeBindAddress);
    if (metricsBind) {
      const secure = this.#o.metricsSecure === true;
      const certPath = this.#o.metricsCertPath;
      const certs =
        secure && certPath !== undefined
          ? new CertWatcher({ purpose: 'metrics', certPath, logger: log })
          : undefined;
      const server = new ProbeServer({
        registry: this.metrics.registry,
        ...(secure
          ? {
              tls: certs?.current ?? this.#selfSignedMetricsCertificate(),
              filter: authenticationAndAuthorization(this.transport),
            }
          : {}),
      });
      certs?.watch(signal, (pair) => server.setCertificate(pair));
      this.metricsAddress = await server.listen(metricsBind);
      servers.push(server);
      log.info('serving metrics', {
        address: `${this.metricsAddress.address}:${this.metricsAddress.port}`,
        secure,
        ...(secure ? { certificate: this.#o.metricsCertPath ?? 'self-signed' } : {}),
      });
    }
    if (probeBind) {
      const server = new ProbeServer({ healthz: this.#healthz, readyz: this.#readyz });
      this.healthProbeAddress = await server.listen(probeBind);
      servers.push(server);
      log.info('serving health probes', {
        address: `${this.healthProbeAddress.address}:${this.healthProbeAddress.port}`,
      });
    }
    return servers;
  }

  /**
   * Waits for leadership when leader election is on; with a Lease, then keeps renewing it until `leaderStop`
   * aborts. `lost` rejects when a renewal fails past its deadline; it never settles without an election, nor
   * for a leader for life (it leads until its Pod is gone).
   */
  async #lead(
    signal: AbortSignal,
    leaderStop: AbortSignal,
  ): Promise<{ elector?: LeaderElector; lost: Promise<void> }> {
    const election = this.#o.leaderElection;
    const never = new Promise<void>(() => {});
    if (!election) return { lost: never };
    if (election.mode === 'for-life') {
      await this.#leadForLife(election, this.#forLifePod(election), signal);
      return { lost: never };
    }
    const log = this.logger;
    const elector = new LeaderElector(this.apiClient, {
      id: election.id,
      namespace: election.namespace ?? defaultLeaseNamespace(),
      identity: election.identity,
      leaseDurationMs: election.leaseDurationMs,
      renewDeadlineMs: election.renewDeadlineMs,
      retryPeriodMs: election.retryPeriodMs,
    });
    log.info('attempting to acquire leader lease', { lease: election.id, identity: elector.identity });
    this.metrics.leaderElectionMasterStatus.set({ name: election.id }, 0);
    const acquired = await elector.acquire(signal, (e) =>
      this.#retrying(`acquiring lease ${election.id}`, e, 'lease acquire failed'),
    );
    if (!acquired) return { elector, lost: never };
    log.info('acquired leader lease', { lease: election.id });
    this.metrics.leaderElectionMasterStatus.set({ name: election.id }, 1);
    return {
      elector,
      lost: elector.renew(leaderStop, (e) => log.warn('lease renew failed', { error: e.message })),
    };
  }

  /**
   * The Pod leader for life ties the lock to; undefined outside a cluster without one (the election is then
   * skipped, as operator-lib skips it). Throws in a cluster without one: it would lead beside the leader.
   */
  #forLifePod(election: ForLifeLeaderElectionConfig): string | undefined {
    const podName = election.podName ?? process.env.POD_NAME;
    if (podName) return podName;
    if (election.inCluster ?? runningInCluster()) throw new Error(FOR_LIFE_NEEDS_POD_NAME);
    return undefined;
  }

  /** Waits until this Pod's create of the lock ConfigMap succeeded (or it already owns the lock). */
  async #leadForLife(
    election: ForLifeLeaderElectionConfig,
    podName: string | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const log = this.logger;
    if (!podName) {
      log.warn('leader for life skipped: not running in a cluster and no POD_NAME; this replica leads', {
        lock: election.id,
      });
      return;
    }
    const namespace = election.namespace ?? defaultLeaseNamespace();
    const elector = new LeaderForLife(this.apiClient, {
      id: election.id,
      namespace,
      podName,
      maxBackoffMs: election.maxBackoffMs,
    });
    const fields = { lock: `${namespace}/${election.id}`, pod: podName };
    log.info('trying to become the leader for life', fields);
    this.metrics.leaderElectionMasterStatus.set({ name: election.id }, 0);
    let lastWait = '';
    const acquired = await elector.acquire(signal, (event) => {
      if (event.kind === 'error')
        this.#retrying(`leader lock ${fields.lock}`, event.error, 'leader lock check failed', fields);
      if (event.kind === 'resumed') log.info('found the leader lock this pod owns; leading again', fields);
      if (event.kind !== 'held') return;
      const { verdict } = event;
      const said = JSON.stringify(verdict);
      if (verdict.action === 'wait' || verdict.action === 'wait-for-gc') {
        // Once per change, not at every back-off step.
        if (said !== lastWait) log.info('not the leader; waiting', { ...fields, ...verdict });
        lastWait = said;
      } else log.warn(deletionMessage(verdict) ?? 'deleting the leader pod', { ...fields, ...verdict });
    });
    if (!acquired) return;
    log.info('became the leader for life', fields);
    this.metrics.leaderElectionMasterStatus.set({ name: election.id }, 1);
  }

  /** Leadership is gone: another replica may soon be reconciling, so no write from here on and no drain. */
  #abandon(lossError: LeaderElectionLostError, leaderStop: AbortController): void {
    this.transport.fenceWrites(lossError);
    const election = this.#o.leaderElection;
    if (election) this.metrics.leaderElectionMasterStatus.set({ name: election.id }, 0);
    this.logger.error('leader election lost', lossError);
    leaderStop.abort(lossError);
  }

  /**
   * A graceful stop: the runnables get their stop signal and up to the shutdown timeout to finish their
   * in-flight work; then the lease is released, so a successor need not wait for it to expire.
   */
  async #drain(
    finished: Promise<unknown>,
    leaderStop: AbortController,
    reason: unknown,
    elector: LeaderElector | undefined,
  ): Promise<void> {
    const log = this.logger;
    const timeoutMs = this.#o.gracefulShutdownTimeoutMs ?? 30_000;
    log.info('stopping; waiting for in-flight reconciles', { timeoutMs });
    leaderStop.abort(reason);
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      finished.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (!drained) log.warn('graceful shutdown timed out; leaving reconciles unfinished', { timeoutMs });
    const election = this.#o.leaderElection;
    if (elector?.isLeader && election?.mode !== 'for-life' && (election?.releaseOnCancel ?? true)) {
      await elector.release();
      if (election) this.metrics.leaderElectionMasterStatus.set({ name: election.id }, 0);
      log.info('released leader lease', { lease: election?.id });
    }
  }

  /**
   * Runs until `signal` aborts (then shuts down gracefully and resolves) or leadership is lost (then stops
   * the controllers at once and rejects with LeaderElectionLostError: exit the process). Rejects after a
   * shutdown when a runnable fails or leader election cannot work (leader for life without `POD_NAME` in a
   * cluster, or without the RBAC it needs).
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new Error('a manager starts only once');
    this.#started = true;
    // Until start returns, however it ends (a lost lease does not abort `signal`), REST mapping waits out an
    // API server that is not ready: starting runnables, controllers and reconciles alike.
    const running = new AbortController();
    this.#discoveryRetry = {
      signal: AbortSignal.any([signal, running.signal]),
      onRetry: (failure) =>
        this.#retrying(failure.operation, failure.error, 'discovery failed; retrying', {
          retryInMs: failure.retryInMs,
        }),
    };
    try {
      await this.#run(signal);
    } finally {
      this.#discoveryRetry = undefined;
      running.abort();
    }
  }

  async #run(signal: AbortSignal): Promise<void> {
    const servers = await this.#serve(signal);
    const cacheStop = new AbortController();
    this.#informers.start(cacheStop.signal);
    const runners: Promise<void>[] = [];
    // A runnable that fails (a controller whose caches never sync, say) stops the whole manager, as in Go.
    let failure: Error | undefined;
    let reportFailure!: () => void;
    const failed = new Promise<void>((resolve) => {
      reportFailure = resolve;
    });
    const run = (r: Runnable, s: AbortSignal) =>
      r.start(s).catch((error: Error) => {
        this.logger.error('runnable failed; stopping the manager', error);
        failure ??= error;
        reportFailure();
      });
    for (const r of this.#runnables.filter((r) => r.needLeaderElection === false))
      runners.push(run(r, signal));

    const leaderStop = new AbortController();
    const onStop = () => leaderStop.abort(signal.reason);
    signal.addEventListener('abort', onStop, { once: true });
    let elector: LeaderElector | undefined;
    let lost = new Promise<void>(() => {});
    let electionFailed = false;
    try {
      ({ elector, lost } = await this.#lead(signal, leaderStop.signal));
    } catch (error) {
      // An election that cannot work (no POD_NAME in a cluster, RBAC missing) stops the manager as a failed
      // runnable does: nothing leader-only starts, and what runs is shut down.
      electionFailed = true;
      failure ??= error as Error;
      reportFailure();
    }
    if (!signal.aborted && !electionFailed) {
      this.#resolveElected();
      for (const r of this.#runnables.filter((r) => r.needLeaderElection !== false)) {
        runners.push(run(r, leaderStop.signal));
      }
    }

    const stopped = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    let lossError: LeaderElectionLostError | undefined;
    await Promise.race([
      stopped,
      failed,
      lost.catch((error: Error) => {
        lossError =
          error instanceof LeaderElectionLostError ? error : new LeaderElectionLostError(error.message);
      }),
    ]);
    if (lossError) this.#abandon(lossError, leaderStop);
    else await this.#drain(Promise.allSettled(runners), leaderStop, signal.reason, elector);

    signal.removeEventListener('abort', onStop);
    cacheStop.abort();
    await Promise.all(this.#recorders.map((r) => r.close().catch(() => {})));
    await Promise.all(servers.map((s) => s.close()));
    await this.#informers.stopped();
    await this.transport.close();
    if (lossError) throw lossError;
    if (failure) throw failure;
  }
}

/** An AbortSignal that aborts on SIGTERM or SIGINT: pass it to `manager.start`. */
export function setupSignalHandler(): AbortSignal {
  const controller = new AbortController();
  const stop = (name: string) => () => {
    if (controller.signal.aborted) process.exit(1); // a second signal: exit now
    controller.abort(new Error(`received ${name}`));
  };
  process.on('SIGTERM', stop('SIGTERM'));
  process.on('SIGINT', stop('SIGINT'));
  return controller.signal;
}
