import {
  createLogger,
  type KubeConfig,
  type Logger,
  Manager,
  type ManagerOptions,
} from '@opkit/controller-runtime';
import { setupMemcachedController } from './controller/memcached-controller.js';
import { prometheusRuleInstaller } from './monitoring/prometheus-rule.js';

export interface MemcachedOperatorOptions {
  readonly kubeConfig?: KubeConfig;
  readonly metricsBindAddress?: string;
  readonly healthProbeBindAddress?: string;
  readonly leaderElect?: boolean;
  /** Namespaces to watch; default from WATCH_NAMESPACE (empty: all). */
  readonly namespaces?: readonly string[];
  /** The operator's own namespace (leader lease, alert rules). @default POD_NAMESPACE or "default" */
  readonly namespace?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly logger?: Logger;
  readonly maxConcurrentReconciles?: number;
  readonly managerOptions?: Partial<ManagerOptions>;
}

/** Builds the operator's manager: the Memcached controller plus the alert-rule installer. */
export function createMemcachedOperator(options: MemcachedOperatorOptions = {}): Manager {
  const env = options.env ?? process.env;
  const namespace = options.namespace ?? env.POD_NAMESPACE ?? 'default';
  const logger = options.logger ?? createLogger();
  const manager = new Manager({
    kubeConfig: options.kubeConfig,
    namespaces: options.namespaces,
    metricsBindAddress: options.metricsBindAddress,
    healthProbeBindAddress: options.healthProbeBindAddress,
    leaderElection: options.leaderElect
      ? { id: 'memcached-operator.cache.example.com', namespace }
      : undefined,
    fieldManager: 'memcached-operator',
    logger,
    ...options.managerOptions,
  });
  setupMemcachedController(manager, { env, maxConcurrentReconciles: options.maxConcurrentReconciles });
  manager.add(prometheusRuleInstaller(manager.apiReader, namespace, logger));
  return manager;
}
