// The operator's command: `memcached-operator --metrics-bind-address=:8443 --health-probe-bind-address=:8081 --leader-elect`
import {
  createLogger,
  LeaderElectionLostError,
  loadKubeConfig,
  managerCommand,
  parseManagerFlags,
  setupSignalHandler,
} from '@opkit/controller-runtime';
import { createMemcachedOperator } from './operator.js';

const command = managerCommand(
  'memcached-operator',
  'Runs the Memcached operator against the current cluster.',
);
command.parse(process.argv);
const flags = parseManagerFlags(command);
const logger = createLogger({ level: flags.logLevel, fields: { logger: 'memcached-operator' } });
try {
  const manager = createMemcachedOperator({
    kubeConfig: loadKubeConfig(flags.kubeconfig),
    metricsBindAddress: flags.metricsBindAddress,
    healthProbeBindAddress: flags.healthProbeBindAddress,
    leaderElect: flags.leaderElect,
    logger,
  });
  logger.info('starting manager', { watchNamespace: manager.namespaces.join(',') || '(all)' });
  await manager.start(setupSignalHandler());
  logger.info('stopped');
} catch (error) {
  logger.error(error instanceof LeaderElectionLostError ? 'leader election lost' : 'manager failed', error);
  process.exitCode = 1;
}
