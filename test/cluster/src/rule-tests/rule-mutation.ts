import type { RuleGroup } from '@opkit/controller-runtime/monitoring';

/**
 * The rules with the expression of the rule `name` (an alert or a recorded series) rewritten: a spec breaks a
 * rule on purpose to show its rule tests notice. Throws when no rule has that name or the rewrite changes
 * nothing, so such a spec cannot pass by breaking nothing.
 */
export function withRuleExpr(
  groups: readonly RuleGroup[],
  name: string,
  rewrite: (expr: string) => string,
): RuleGroup[] {
  let changed = false;
  const result = groups.map((group) => ({
    ...group,
    rules: group.rules.map((rule) => {
      if (('alert' in rule ? rule.alert : rule.record) !== name) return rule;
      const expr = rewrite(rule.expr);
      changed ||= expr !== rule.expr;
      return { ...rule, expr };
    }),
  }));
  if (!changed) throw new Error(`no rule ${name} whose expression the rewrite changes`);
  return result;
}
