// @opkit/controller-runtime/monitoring: an operator's Prometheus alert and recording rules as plain data, the
// rule file `promtool test rules` reads, and the PrometheusRule the operator installs from the same rules.
export {
  PROMETHEUS_RULE,
  type PrometheusRule,
  prometheusRule,
  prometheusRuleInstaller,
  prometheusRuleRbac,
} from './prometheus-rule.js';
export {
  type AlertingRule,
  isAlertingRule,
  type RecordingRule,
  type Rule,
  type RuleGroup,
  ruleFileYaml,
} from './rules.js';
