import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { isAlertingRule, type RuleGroup } from '@opkit/controller-runtime/monitoring';
import { parse } from 'yaml';

interface RuleTestFile {
  tests?: { alert_rule_test?: { alertname?: string }[]; promql_expr_test?: { expr?: string }[] }[];
}

/** Whether `expr` uses the series `name` (as a metric name, not as part of a longer one). */
function namesSeries(expr: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^A-Za-z0-9_:])${escaped}($|[^A-Za-z0-9_:])`).test(expr);
}

/**
 * One line for each rule no test case names: an alert without an `alert_rule_test` of its `alertname`, a
 * recording rule without a `promql_expr_test` whose `expr` reads its series. Empty when the tests cover every
 * rule, so rules and tests stay in step.
 */
export function untestedRules(groups: readonly RuleGroup[], testFiles: readonly string[]): string[] {
  const alertnames = new Set<string>();
  const exprs: string[] = [];
  for (const file of testFiles) {
    const tests = (parse(readFileSync(file, 'utf8')) as RuleTestFile | null)?.tests ?? [];
    for (const test of tests) {
      for (const { alertname } of test.alert_rule_test ?? []) if (alertname) alertnames.add(alertname);
      for (const { expr } of test.promql_expr_test ?? []) if (expr) exprs.push(expr);
    }
  }
  const files = testFiles.map((f) => basename(f)).join(', ');
  const missing: string[] = [];
  for (const group of groups) {
    for (const rule of group.rules) {
      if (isAlertingRule(rule)) {
        if (!alertnames.has(rule.alert))
          missing.push(`alert ${rule.alert} (group ${group.name}) has no alert_rule_test in ${files}`);
      } else if (!exprs.some((expr) => namesSeries(expr, rule.record))) {
        missing.push(
          `recording rule ${rule.record} (group ${group.name}) has no promql_expr_test in ${files}`,
        );
      }
    }
  }
  return missing;
}
