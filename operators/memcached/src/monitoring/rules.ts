// The operator's Prometheus rules, as plain data: the operator installs them as a PrometheusRule at start-up,
// `nx run memcached:rules` renders them to a rule file, and rules.test.yaml beside this file tests them with
// `promtool test rules` (rules.spec.ts runs it).
import { type PrometheusRule, prometheusRule, type RuleGroup } from '@opkit/controller-runtime/monitoring';

/** The operator's alerting rules, as the Operator SDK monitoring guide defines them. */
export const memcachedRuleGroups: readonly RuleGroup[] = [
  {
    name: 'memcached.rules',
    rules: [
      {
        record: 'memcached_operator_up_total',
        expr: "sum(up{pod=~'memcached-operator-controller-manager-.*'} or vector(0))",
      },
      {
        alert: 'MemcachedOperatorDown',
        expr: 'memcached_operator_up_total == 0',
        for: '5m',
        labels: { severity: 'critical' },
        annotations: {
          description: 'No running memcached-operator pods were detected in the last 5 min.',
        },
      },
      {
        alert: 'MemcachedDeploymentSizeUndesired',
        expr: 'increase(memcached_deployment_size_undesired_count_total[5m]) >= 3',
        labels: { severity: 'warning' },
        annotations: {
          description:
            'A Memcached deployment size was not as desired more than 3 times in the last 5 minutes.',
        },
      },
    ],
  },
];

/** The PrometheusRule `memcached-operator-rules` in the operator's namespace. */
export function memcachedPrometheusRule(namespace: string): PrometheusRule {
  return prometheusRule('memcached-operator', namespace, memcachedRuleGroups);
}
