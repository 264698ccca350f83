import { type DirectClient, NoKindMatchError } from '../client/index.js';
import { applyIfChanged } from '../controllerutil/index.js';
import { ignoreNotFound, isNotFound } from '../errors/index.js';
import { Backoff, sleep } from '../internal/retry/backoff.js';
import type { Logger } from '../log/index.js';
import type { Runnable } from '../manager/index.js';
import { type KubeObject, kind } from '../object.js';
import type { ResourcePolicyRule } from '../rbac/index.js';
import type { RuleGroup } from './rules.js';

/** A Prometheus Operator rule object, as far as an operator writes one. */
export interface PrometheusRule extends KubeObject {
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  spec: { groups: readonly RuleGroup[] };
}

export const PROMETHEUS_RULE = kind<PrometheusRule>('monitoring.coreos.com/v1', 'PrometheusRule');

/**
 * What an operator needs in its own namespace to install its rules (when Prometheus Operator is installed).
 * Whether the kind is served is asked through discovery, which needs no rule.
 */
export const prometheusRuleRbac: readonly ResourcePolicyRule[] = [
  {
    apiGroups: ['monitoring.coreos.com'],
    resources: ['prometheusrules'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'],
  },
];

/** The PrometheusRule `<operator>-rules` holding `groups`, labelled as the operator's own. */
export function prometheusRule(
  operator: string,
  namespace: string,
  groups: readonly RuleGroup[],
): PrometheusRule {
  return {
    ...PROMETHEUS_RULE,
    metadata: {
      name: `${operator}-rules`,
      namespace,
      labels: { 'app.kubernetes.io/name': operator, 'app.kubernetes.io/managed-by': operator },
    },
    spec: { groups },
  };
}

/** Options of {@link prometheusRuleInstaller}. */
export interface PrometheusRuleInstallerOptions {
  /** The retry delays after a failed install: doubling from `initialMs` (800) up to `maxMs` (30000). */
  readonly retry?: { readonly initialMs?: number; readonly maxMs?: number };
}

/**
 * Installs `rule` at start-up when the PrometheusRule API exists; otherwise says so in one log line and does
 * nothing. Runs on every replica, and writes only when the rules differ from the installed ones: a restart of
 * a converged operator costs no write. A failed install (the API server busy, RBAC not yet applied) is logged
 * and retried with capped back-off until it works or the manager stops; the operator reconciles meanwhile,
 * since its alert rules are no reason to stop it.
 */
export function prometheusRuleInstaller(
  api: DirectClient,
  rule: PrometheusRule,
  log: Logger,
  fieldManager: string,
  options: PrometheusRuleInstallerOptions = {},
): Runnable {
  const { name, namespace } = rule.metadata;
  const install = async (): Promise<void> => {
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
    const live = await ignoreNotFound(api.get(PROMETHEUS_RULE, name, namespace));
    const outcome = await applyIfChanged(
      { fieldManager, apply: (obj) => api.apply(obj, { fieldManager }) },
      rule,
      live,
    );
    log.info(`PrometheusRule ${name} ${outcome}`, { namespace });
  };
  return {
    needLeaderElection: false,
    async start(signal) {
      const backoff = new Backoff({ ...options.retry, resetAfterMs: Number.POSITIVE_INFINITY });
      while (!signal.aborted) {
        try {
          await install();
          return;
        } catch (error) {
          if (signal.aborted) return;
          const delayMs = backoff.next();
          log.error(`cannot install PrometheusRule ${name}; retrying in ${Math.ceil(delayMs)} ms`, error, {
            namespace,
          });
          await sleep(delayMs, signal);
        }
      }
    },
  };
}
