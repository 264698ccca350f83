import {
  applyIfChanged,
  ignoreNotFound,
  isNotFound,
  type KubeObject,
  kind,
  type Logger,
} from '@opkit/controller-runtime';
import { type DirectClient, NoKindMatchError } from '@opkit/controller-runtime/client';
import type { Runnable } from '@opkit/controller-runtime/manager';
import type { ResourcePolicyRule } from '@opkit/controller-runtime/rbac';

/** A Prometheus Operator rule object, as far as the operator writes one. */
export interface PrometheusRule extends KubeObject {
  spec: { groups: { name: string; rules: Record<string, unknown>[] }[] };
}

export const PROMETHEUS_RULE = kind<PrometheusRule>('monitoring.coreos.com/v1', 'PrometheusRule');

/** What the operator needs in its own namespace: the alerting rule (when Prometheus Operator is installed). */
export const monitoringRbac: readonly ResourcePolicyRule[] = [
  {
    apiGroups: ['monitoring.coreos.com'],
    resources: ['prometheusrules'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'],
  },
  { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get'] },
];

/** The operator's alerting rules, as the Operator SDK monitoring guide defines them. */
export function memcachedPrometheusRule(namespace: string) {
  return {
    ...PROMETHEUS_RULE,
    metadata: {
      name: 'memcached-operator-rules',
      namespace,
      labels: {
        'app.kubernetes.io/name': 'memcached-operator',
        'app.kubernetes.io/managed-by': 'memcached-operator',
      },
    },
    spec: {
      groups: [
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
      ],
    },
  };
}

/**
 * Installs the alerting rules in the operator's namespace once, at start-up, when the PrometheusRule API
 * exists; otherwise says so in one log line and does nothing. Runs on every replica, and writes only when the
 * rules differ from the installed ones: a restart of a converged operator costs no write.
 */
export function prometheusRuleInstaller(api: DirectClient, namespace: string, log: Logger): Runnable {
  return {
    needLeaderElection: false,
    async start() {
      try {
        await api.mapping(PROMETHEUS_RULE.apiVersion, PROMETHEUS_RULE.kind);
      } catch (error) {
        if (error instanceof NoKindMatchError || isNotFound(error)) {
          log.info(
            'PrometheusRule API (monitoring.coreos.com/v1) not found; skipping the operator alert rules',
          );
          return;
        }
        throw error;
      }
      const desired = memcachedPrometheusRule(namespace);
      const live = await ignoreNotFound(api.get(PROMETHEUS_RULE, desired.metadata.name, namespace));
      const fieldManager = 'memcached-operator';
      const outcome = await applyIfChanged(
        { fieldManager, apply: (obj) => api.apply(obj, { fieldManager }) },
        desired,
        live,
      );
      log.info(`PrometheusRule ${desired.metadata.name} ${outcome}`, { namespace });
    },
  };
}
