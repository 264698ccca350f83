// Prometheus rule tests for operators: the operator's rules rendered beside its promtool rule test files and
// run by the real `promtool test rules`, and the check that every rule has a test case naming it.
export { promtoolTestRules, RULE_FILE_NAME, type RuleTestRun } from './promtool-test-rules.js';
export { withRuleExpr } from './rule-mutation.js';
export { untestedRules } from './rule-test-coverage.js';
