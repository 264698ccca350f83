import { join } from 'node:path';
import { promtoolBinary, promtoolTestRules, untestedRules, withRuleExpr } from '@opkit/test-cluster';
import { beforeAll, describe, expect, it } from 'vitest';
import { memcachedPrometheusRule, memcachedRuleGroups } from './rules.js';

const testFiles = [join(import.meta.dirname, 'rules.test.yaml')];

describe('the operator alert and recording rules', () => {
  it('are what the operator installs as its PrometheusRule', () => {
    expect(memcachedPrometheusRule('memcached-operator-system').spec.groups).toBe(memcachedRuleGroups);
  });

  it('each have a promtool test case naming them', () => {
    expect(untestedRules(memcachedRuleGroups, testFiles).join('\n')).toBe('');
  });

  describe('under promtool', () => {
    let promtool: string;

    // promtool is built from its Go module on first use and cached (cold: minutes; warm: a stat).
    beforeAll(async () => {
      promtool = await promtoolBinary();
    }, 1_800_000);

    it("pass promtool's rule tests", async () => {
      const run = await promtoolTestRules(promtool, memcachedRuleGroups, testFiles);
      expect(run.passed, run.output).toBe(true);
    });

    it('fail them when the recording rule selects the wrong pods', async () => {
      const broken = withRuleExpr(memcachedRuleGroups, 'memcached_operator_up_total', (expr) =>
        expr.replace('memcached-operator-controller-manager-', 'memcached-controller-manager-'),
      );
      const run = await promtoolTestRules(promtool, broken, testFiles);
      expect(run.passed, run.output).toBe(false);
      expect(run.output).toContain('memcached_operator_up_total');
    });

    it('fail them when an alert condition can never hold', async () => {
      const broken = withRuleExpr(memcachedRuleGroups, 'MemcachedDeploymentSizeUndesired', (expr) =>
        expr.replace('>= 3', '>= 300'),
      );
      const run = await promtoolTestRules(promtool, broken, testFiles);
      expect(run.passed, run.output).toBe(false);
      expect(run.output).toContain('MemcachedDeploymentSizeUndesired');
    });
  });
});
