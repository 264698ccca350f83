// The operator's command: `memcached-operator --metrics-bind-address=:8443 --health-probe-bind-address=:8081 --leader-elect`
// Leader election uses a Lease by default. For leader for life (a ConfigMap owned by the leader's Pod, held
// until that Pod is gone; needs POD_NAME, which config/manager/manager.yaml sets, and the RBAC of
// `leaderForLifeRules`: README, "Leader election"), pass `--leader-election-mode=for-life`, or make it this
// operator's default with `leaderElectionMode: 'for-life'` below.
import { runOperatorMain } from '@opkit/controller-runtime';
import { createMemcachedOperator } from './operator.js';

await runOperatorMain({
  name: 'memcached-operator',
  description: 'Runs the Memcached operator against the current cluster.',
  create: createMemcachedOperator,
  leaderElectionMode: 'lease',
});
