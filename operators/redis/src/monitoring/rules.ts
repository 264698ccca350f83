// The operator's Prometheus rules, as plain data: the operator installs them as a PrometheusRule at start-up,
// `nx run redis:rules` renders them to a rule file, and rules.test.yaml beside this file tests them with
// `promtool test rules` (rules.spec.ts runs it). They read only what the operator exports: the scrape's `up`
// and the per-cluster gauges of src/controller/redis-cluster/metrics.ts.
import { type PrometheusRule, prometheusRule, type RuleGroup } from '@opkit/controller-runtime/monitoring';

/** Every hash slot of a Redis Cluster. */
const HASH_SLOTS = 16384;

export const redisRuleGroups: readonly RuleGroup[] = [
  {
    name: 'redis.rules',
    rules: [
      {
        record: 'redis_operator_up_total',
        expr: "sum(up{pod=~'redis-operator-controller-manager-.*'} or vector(0))",
      },
      {
        alert: 'RedisOperatorDown',
        expr: 'redis_operator_up_total == 0',
        for: '5m',
        labels: { severity: 'critical' },
        annotations: {
          description: 'No running redis-operator pods were detected in the last 5 min.',
        },
      },
      {
        // A cluster that is not ok refuses writes; a new or healing cluster passes through it briefly.
        alert: 'RedisClusterStateNotOk',
        expr: 'redis_cluster_state_ok == 0',
        for: '5m',
        labels: { severity: 'critical' },
        annotations: {
          description: 'RedisCluster {{ $labels.name }} has not reported cluster_state:ok for 5 minutes.',
        },
      },
      {
        alert: 'RedisClusterSlotsUnassigned',
        expr: `redis_cluster_slots_assigned < ${HASH_SLOTS}`,
        for: '10m',
        labels: { severity: 'warning' },
        annotations: {
          description:
            'RedisCluster {{ $labels.name }} has had only {{ $value }} of 16384 hash slots assigned for 10 minutes.',
        },
      },
    ],
  },
];

/** The PrometheusRule `redis-operator-rules` in the operator's namespace. */
export function redisPrometheusRule(namespace: string): PrometheusRule {
  return prometheusRule('redis-operator', namespace, redisRuleGroups);
}
