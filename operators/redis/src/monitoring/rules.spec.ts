import { join } from 'node:path';
import { promtoolBinary, promtoolTestRules, untestedRules, withRuleExpr } from '@opkit/test-cluster';
import { beforeAll, describe, expect, it } from 'vitest';
import { redisPrometheusRule, redisRuleGroups } from './rules.js';

const testFiles = [join(import.meta.dirname, 'rules.test.yaml')];

describe('the operator alert and recording rules', () => {
  it('are what the operator installs as its PrometheusRule', () => {
    expect(redisPrometheusRule('redis-operator-system').spec.groups).toBe(redisRuleGroups);
  });

  it('each have a promtool test case naming them', () => {
    expect(untestedRules(redisRuleGroups, testFiles).join('\n')).toBe('');
  });

  describe('under promtool', () => {
    let promtool: string;

    // promtool is built from its Go module on first use and cached (cold: minutes; warm: a stat).
    beforeAll(async () => {
      promtool = await promtoolBinary();
    }, 1_800_000);

    it("pass promtool's rule tests", async () => {
      const run = await promtoolTestRules(promtool, redisRuleGroups, testFiles);
      expect(run.passed, run.output).toBe(true);
    });

    it('fail them when the recording rule selects the wrong pods', async () => {
      const broken = withRuleExpr(redisRuleGroups, 'redis_operator_up_total', (expr) =>
        expr.replace('redis-operator-controller-manager-', 'redis-controller-manager-'),
      );
      const run = await promtoolTestRules(promtool, broken, testFiles);
      expect(run.passed, run.output).toBe(false);
      expect(run.output).toContain('redis_operator_up_total');
    });

    it('fail them when an alert reads a label the metric does not have', async () => {
      const broken = withRuleExpr(redisRuleGroups, 'RedisClusterStateNotOk', (expr) =>
        expr.replace('redis_cluster_state_ok', 'redis_cluster_state_ok{cluster!=""}'),
      );
      const run = await promtoolTestRules(promtool, broken, testFiles);
      expect(run.passed, run.output).toBe(false);
      expect(run.output).toContain('RedisClusterStateNotOk');
    });
  });
});
