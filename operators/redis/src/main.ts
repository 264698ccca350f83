// The operator's command: `redis-operator --metrics-bind-address=:8443 --health-probe-bind-address=:8081 --leader-elect`
import { runOperatorMain } from '@opkit/controller-runtime';
import { createRedisOperator } from './operator.js';

await runOperatorMain({
  name: 'redis-operator',
  description: 'Runs the Redis operator against the current cluster.',
  create: createRedisOperator,
});
