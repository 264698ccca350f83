import {
  createLogger,
  type KubeConfig,
  type Logger,
  Manager,
  type ManagerOptions,
} from '@opkit/controller-runtime';
import { setupRedisClusterController } from './controller/redis-cluster-controller.js';

export interface RedisOperatorOptions {
  readonly kubeConfig?: KubeConfig;
  readonly metricsBindAddress?: string;
  readonly healthProbeBindAddress?: string;
  readonly leaderElect?: boolean;
  /** Namespaces to watch; default from WATCH_NAMESPACE (empty: all). */
  readonly namespaces?: readonly string[];
  /** The operator's own namespace (leader lease). @default POD_NAMESPACE or "default" */
  readonly namespace?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly logger?: Logger;
  readonly maxConcurrentReconciles?: number;
  readonly managerOptions?: Partial<ManagerOptions>;
}

/** Builds the operator's manager: the RedisCluster controller. */
export function createRedisOperator(options: RedisOperatorOptions = {}): Manager {
  const env = options.env ?? process.env;
  const namespace = options.namespace ?? env.POD_NAMESPACE ?? 'default';
  const logger = options.logger ?? createLogger();
  const manager = new Manager({
    kubeConfig: options.kubeConfig,
    namespaces: options.namespaces,
    metricsBindAddress: options.metricsBindAddress,
    healthProbeBindAddress: options.healthProbeBindAddress,
    leaderElection: options.leaderElect ? { id: 'redis-operator.cache.example.com', namespace } : undefined,
    fieldManager: 'redis-operator',
    logger,
    ...options.managerOptions,
  });
  setupRedisClusterController(manager, {
    env,
    logger,
    maxConcurrentReconciles: options.maxConcurrentReconciles,
  });
  return manager;
}
