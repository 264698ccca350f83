// The operator's command: `redis-operator --metrics-bind-address=:8443 --health-probe-bind-address=:8081 --leader-elect`
import {
  createLogger,
  LeaderElectionLostError,
  loadKubeConfig,
  managerCommand,
  parseManagerFlags,
  setupSignalHandler,
} from '@opkit/controller-runtime';
import { createRedisOperator } from './operator.js';

const command = managerCommand('redis-operator', 'Runs the Redis operator against the current cluster.');
command.parse(process.argv);
const flags = parseManagerFlags(command);
const logger = createLogger({ level: flags.logLevel, fields: { logger: 'redis-operator' } });
try {
  const manager = createRedisOperator({
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
