import { describe, expect, it } from 'vitest';
import type { DirectClient } from '../client/index.js';
import { NoKindMatchError } from '../client/index.js';
import { ApiError } from '../errors/index.js';
import { createLogger } from '../log/index.js';
import { gvkOf } from '../object.js';
import { FakeClient } from '../testing/index.js';
import {
  PROMETHEUS_RULE,
  prometheusRule,
  prometheusRuleInstaller,
  prometheusRuleRbac,
} from './prometheus-rule.js';
import { type RuleGroup, ruleFileYaml } from './rules.js';

const groups: readonly RuleGroup[] = [
  {
    name: 'shop.rules',
    rules: [
      { record: 'shop_operator_up_total', expr: "sum(up{pod=~'shop-.*'} or vector(0))" },
      {
        alert: 'ShopOperatorDown',
        expr: 'shop_operator_up_total == 0',
        for: '5m',
        labels: { severity: 'critical' },
        annotations: {
          description: 'No shop-operator pod for {{ $value }} minutes: a long line that stays one line.',
        },
      },
    ],
  },
];

/**
 * A fake API server that serves the PrometheusRule kind or not (answering the first `failures` discovery
 * requests 500), and the log lines the installer writes.
 */
function world(served: boolean, failures = 0) {
  const fake = new FakeClient();
  let failed = 0;
  const api = Object.assign(fake, {
    async mapping(apiVersion: string, kind: string) {
      if (failed < failures) {
        failed++;
        throw new ApiError(
          500,
          'InternalError',
          'etcdserver: request timed out',
          'GET',
          '/apis/monitoring.coreos.com/v1',
        );
      }
      if (!served) throw new NoKindMatchError(gvkOf(apiVersion, kind));
      return { gvk: gvkOf(apiVersion, kind), resource: 'prometheusrules', namespaced: true };
    },
  }) as FakeClient & DirectClient;
  const lines: string[] = [];
  const log = createLogger({ sink: (line) => lines.push(JSON.parse(line).msg) });
  return { api, fake, lines, log };
}

describe('ruleFileYaml', () => {
  it('writes the groups as the rule file Prometheus reads, one line per field', () => {
    expect(ruleFileYaml(groups)).toBe(`groups:
  - name: shop.rules
    rules:
      - record: shop_operator_up_total
        expr: sum(up{pod=~'shop-.*'} or vector(0))
      - alert: ShopOperatorDown
        expr: shop_operator_up_total == 0
        for: 5m
        labels:
          severity: critical
        annotations:
          description: "No shop-operator pod for {{ $value }} minutes: a long line that stays one line."
`);
  });
});

describe('prometheusRuleInstaller', () => {
  const rule = prometheusRule('shop-operator', 'shop-system', groups);

  it('installs the rule in the operator namespace, and writes nothing when it is already installed', async () => {
    const { api, fake, lines, log } = world(true);
    await prometheusRuleInstaller(api, rule, log, 'shop-operator').start(new AbortController().signal);
    const installed = await fake.get(PROMETHEUS_RULE, 'shop-operator-rules', 'shop-system');
    expect(installed.spec.groups).toEqual(groups);
    expect(installed.metadata.labels).toEqual({
      'app.kubernetes.io/name': 'shop-operator',
      'app.kubernetes.io/managed-by': 'shop-operator',
    });
    fake.reset();
    await prometheusRuleInstaller(api, rule, log, 'shop-operator').start(new AbortController().signal);
    expect(fake.writes()).toEqual([]);
    expect(lines).toEqual([
      'PrometheusRule shop-operator-rules created',
      'PrometheusRule shop-operator-rules unchanged',
    ]);
  });

  it('says in one line that it skips the rule when the PrometheusRule API is not served', async () => {
    const { api, fake, lines, log } = world(false);
    await prometheusRuleInstaller(api, rule, log, 'shop-operator').start(new AbortController().signal);
    expect(fake.actions).toEqual([]);
    expect(lines).toEqual([
      'PrometheusRule API (monitoring.coreos.com/v1) not found; skipping the operator alert rules',
    ]);
  });

  it('logs a failed install and retries it until it works, without stopping the manager', async () => {
    const { api, fake, lines, log } = world(true, 2);
    await prometheusRuleInstaller(api, rule, log, 'shop-operator', {
      retry: { initialMs: 1, maxMs: 4 },
    }).start(new AbortController().signal);
    expect(lines).toEqual([
      expect.stringMatching(/^cannot install PrometheusRule shop-operator-rules; retrying in \d+ ms$/),
      expect.stringMatching(/^cannot install PrometheusRule shop-operator-rules; retrying in \d+ ms$/),
      'PrometheusRule shop-operator-rules created',
    ]);
    expect((await fake.get(PROMETHEUS_RULE, 'shop-operator-rules', 'shop-system')).spec.groups).toEqual(
      groups,
    );
  });

  it('stops retrying when the manager stops', async () => {
    const { api, fake, log } = world(true, Number.POSITIVE_INFINITY);
    const stop = new AbortController();
    const started = prometheusRuleInstaller(api, rule, log, 'shop-operator', {
      retry: { initialMs: 1, maxMs: 2 },
    }).start(stop.signal);
    setTimeout(() => stop.abort(), 20);
    await expect(started).resolves.toBeUndefined();
    expect(fake.actions).toEqual([]);
  });
});

describe('prometheusRuleRbac', () => {
  it('grants only the namespaced prometheusrules the installer writes: it finds the kind through discovery', () => {
    expect(prometheusRuleRbac).toEqual([
      {
        apiGroups: ['monitoring.coreos.com'],
        resources: ['prometheusrules'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'],
      },
    ]);
  });
});
