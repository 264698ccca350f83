// The operator's command: `memcached-operator --metrics-bind-address=:8443 --health-probe-bind-address=:8081 --leader-elect`
import { runOperatorMain } from '@opkit/controller-runtime';
import { createMemcachedOperator } from './operator.js';

await runOperatorMain({
  name: 'memcached-operator',
  description: 'Runs the Memcached operator against the current cluster.',
  create: createMemcachedOperator,
});
