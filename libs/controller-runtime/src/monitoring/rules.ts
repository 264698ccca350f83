import { stringify } from 'yaml';

/** A recording rule: `expr` evaluated and stored as the series `record`. */
export interface RecordingRule {
  readonly record: string;
  readonly expr: string;
  readonly labels?: Readonly<Record<string, string>>;
}

/** An alerting rule: fires when `expr` has held for `for` (at once without it). */
export interface AlertingRule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export type Rule = RecordingRule | AlertingRule;

/** One group of a Prometheus rule file, as Prometheus and a PrometheusRule's `spec.groups` both read it. */
export interface RuleGroup {
  readonly name: string;
  readonly interval?: string;
  readonly rules: readonly Rule[];
}

export function isAlertingRule(rule: Rule): rule is AlertingRule {
  return 'alert' in rule;
}

/**
 * The rule file Prometheus loads (and `promtool test rules` reads): `groups:` with the same groups a
 * PrometheusRule carries, so the rules an operator installs are the rules its tests evaluate.
 */
export function ruleFileYaml(groups: readonly RuleGroup[]): string {
  return stringify({ groups }, { lineWidth: 0 });
}
