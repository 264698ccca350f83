import { LeaderElectionLostError } from '../internal/leaderelection/leader-elector.js';
import type { ClusterConnection } from '../internal/transport/kubeconfig.js';
import { loadKubeConfig } from '../internal/transport/kubeconfig.js';
import { createLogger, type Logger, type LoggerOptions } from '../log/index.js';
import { type LeaderElectionMode, managerCommand, parseManagerFlags } from './flags.js';
import { Manager, type ManagerOptions, setupSignalHandler } from './manager.js';

/** What an operator's factory takes: the manager flags plus what tests and benchmarks override. */
export interface OperatorOptions {
  readonly kubeConfig?: ClusterConnection;
  readonly metricsBindAddress?: string;
  /** HTTPS with authentication and authorization for `/metrics` (see ManagerOptions). @default false */
  readonly metricsSecure?: boolean;
  readonly metricsCertPath?: string;
  readonly healthProbeBindAddress?: string;
  /** The webhook server's port and certificate directory (see ManagerOptions.webhook). */
  readonly webhookPort?: number;
  readonly webhookCertPath?: string;
  readonly webhookCertName?: string;
  readonly webhookCertKey?: string;
  readonly leaderElect?: boolean;
  /**
   * With `leaderElect`: `lease` renews a Lease and hands over within its duration; `for-life` holds a
   * ConfigMap owned by the leader's Pod until that Pod is gone (see ManagerOptions.leaderElection).
   * @default 'lease'
   */
  readonly leaderElectionMode?: LeaderElectionMode;
  /** Namespaces to watch; default from WATCH_NAMESPACE (empty: all). */
  readonly namespaces?: readonly string[];
  /** The operator's own namespace (leader lease and what else it keeps there). @default POD_NAMESPACE or "default" */
  readonly namespace?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly logger?: Logger;
  readonly maxConcurrentReconciles?: number;
  readonly managerOptions?: Partial<ManagerOptions>;
}

/**
 * Whether the operator registers its webhooks: yes unless `ENABLE_WEBHOOKS=false`, as kubebuilder's scaffold
 * decides, so it can run outside the cluster (where the API server cannot call it) without certificates.
 */
export function webhooksEnabled(options: OperatorOptions): boolean {
  return (options.env ?? process.env).ENABLE_WEBHOOKS !== 'false';
}

/** The operator's own namespace as a pod sees it (downward API), else `default`. */
export function operatorNamespace(options: OperatorOptions): string {
  return options.namespace ?? (options.env ?? process.env).POD_NAMESPACE ?? 'default';
}

/**
 * An operator's Manager from its options: leader election on the Lease (or, for life, the ConfigMap)
 * `leaderElectionId` in the operator's namespace when asked for, the operator's name as field manager of
 * every write, and what it caches of each kind (`cache.byObject`, as controller-runtime's
 * `cache.Options.ByObject` in a scaffold's main.go).
 */
export function operatorManager(
  options: OperatorOptions,
  identity: {
    readonly name: string;
    readonly leaderElectionId: string;
    readonly cache?: ManagerOptions['cache'];
  },
): Manager {
  return new Manager({
    kubeConfig: options.kubeConfig,
    namespaces: options.namespaces,
    metricsBindAddress: options.metricsBindAddress,
    metricsSecure: options.metricsSecure,
    metricsCertPath: options.metricsCertPath,
    healthProbeBindAddress: options.healthProbeBindAddress,
    webhook: {
      port: options.webhookPort,
      certPath: options.webhookCertPath,
      certName: options.webhookCertName,
      certKey: options.webhookCertKey,
    },
    leaderElection: options.leaderElect
      ? {
          mode: options.leaderElectionMode ?? 'lease',
          id: identity.leaderElectionId,
          namespace: operatorNamespace(options),
        }
      : undefined,
    fieldManager: identity.name,
    cache: identity.cache,
    logger: options.logger ?? createLogger(),
    ...options.managerOptions,
  });
}

/**
 * The `main` of an operator binary: parses the scaffold's manager flags, builds the manager with `create`,
 * runs it until SIGINT/SIGTERM and sets a non-zero exit code when it fails (a lost leader lease included).
 */
export async function runOperatorMain(program: {
  readonly name: string;
  readonly description: string;
  readonly create: (options: OperatorOptions) => Manager;
  readonly argv?: readonly string[];
  /** The leader election mode when `--leader-election-mode` is not given. @default 'lease' */
  readonly leaderElectionMode?: LeaderElectionMode;
  /** Where log lines go; default stderr. */
  readonly logSink?: LoggerOptions['sink'];
}): Promise<void> {
  const command = managerCommand(program.name, program.description);
  command.parse([...(program.argv ?? process.argv)]);
  const flags = parseManagerFlags(command);
  const logger = createLogger({
    level: flags.logLevel,
    fields: { logger: program.name },
    sink: program.logSink,
  });
  try {
    const manager = program.create({
      kubeConfig: loadKubeConfig(flags.kubeconfig),
      metricsBindAddress: flags.metricsBindAddress,
      metricsSecure: flags.metricsSecure,
      metricsCertPath: flags.metricsCertPath,
      healthProbeBindAddress: flags.healthProbeBindAddress,
      webhookPort: flags.webhookPort,
      webhookCertPath: flags.webhookCertPath,
      webhookCertName: flags.webhookCertName,
      webhookCertKey: flags.webhookCertKey,
      leaderElect: flags.leaderElect,
      leaderElectionMode:
        command.getOptionValueSource('leaderElectionMode') === 'cli'
          ? flags.leaderElectionMode
          : (program.leaderElectionMode ?? flags.leaderElectionMode),
      logger,
    });
    logger.info('starting manager', { watchNamespace: manager.namespaces.join(',') || '(all)' });
    await manager.start(setupSignalHandler());
    logger.info('stopped');
  } catch (error) {
    logger.error(error instanceof LeaderElectionLostError ? 'leader election lost' : 'manager failed', error);
    process.exitCode = 1;
  }
}
