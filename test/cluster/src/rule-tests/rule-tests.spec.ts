import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RuleGroup } from '@opkit/controller-runtime/monitoring';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRuleExpr } from './rule-mutation.js';
import { untestedRules } from './rule-test-coverage.js';

const groups: RuleGroup[] = [
  {
    name: 'shop.rules',
    rules: [
      { record: 'shop_operator_up_total', expr: 'sum(up{pod=~"shop-.*"} or vector(0))' },
      { alert: 'ShopOperatorDown', expr: 'shop_operator_up_total == 0', for: '5m' },
    ],
  },
];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rule-coverage-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function testFile(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('untestedRules', () => {
  it('is empty when an alert_rule_test names each alert and a promql_expr_test reads each recorded series', () => {
    const file = testFile(
      'covered.test.yaml',
      `tests:
  - promql_expr_test:
      - expr: max(shop_operator_up_total)
    alert_rule_test:
      - alertname: ShopOperatorDown
`,
    );
    expect(untestedRules(groups, [file])).toEqual([]);
  });

  it('names each rule without a case, and the test file, in one line each', () => {
    const file = testFile(
      'partial.test.yaml',
      `tests:
  - promql_expr_test:
      # A longer series name does not count as the recorded one.
      - expr: shop_operator_up_total_by_zone
    alert_rule_test:
      - alertname: ShopOperatorDownSoon
`,
    );
    expect(untestedRules(groups, [file])).toEqual([
      'recording rule shop_operator_up_total (group shop.rules) has no promql_expr_test in partial.test.yaml',
      'alert ShopOperatorDown (group shop.rules) has no alert_rule_test in partial.test.yaml',
    ]);
  });
});

describe('withRuleExpr', () => {
  it('rewrites the expression of the named rule only', () => {
    const broken = withRuleExpr(groups, 'ShopOperatorDown', (expr) => expr.replace('== 0', '< 0'));
    expect(broken[0]?.rules.map((r) => r.expr)).toEqual([
      'sum(up{pod=~"shop-.*"} or vector(0))',
      'shop_operator_up_total < 0',
    ]);
  });

  it('counts a rule it changed even when a later rule of that name stays as it was', () => {
    // An alert split by severity: two rules of one name, only the first of which has the threshold.
    const split: RuleGroup[] = [
      {
        name: 'shop.rules',
        rules: [
          { alert: 'ShopOperatorDown', expr: 'shop_operator_up_total == 0', for: '5m' },
          { alert: 'ShopOperatorDown', expr: 'absent(shop_operator_up_total)', for: '15m' },
        ],
      },
    ];
    const broken = withRuleExpr(split, 'ShopOperatorDown', (expr) => expr.replace('== 0', '< 0'));
    expect(broken[0]?.rules.map((r) => r.expr)).toEqual([
      'shop_operator_up_total < 0',
      'absent(shop_operator_up_total)',
    ]);
  });

  it('refuses a rewrite that breaks nothing', () => {
    expect(() => withRuleExpr(groups, 'ShopOperatorGone', (expr) => `${expr} > 1`)).toThrow(
      'no rule ShopOperatorGone whose expression the rewrite changes',
    );
    expect(() => withRuleExpr(groups, 'ShopOperatorDown', (expr) => expr.replace('>= 3', '>= 30'))).toThrow(
      'no rule ShopOperatorDown whose expression the rewrite changes',
    );
  });
});
