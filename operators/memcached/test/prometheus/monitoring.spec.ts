// The Memcached operator's metrics, recording rule and alerts in a real Prometheus: the cluster runs the
// Prometheus Operator and one Prometheus (`startCluster`'s `prometheus: true`); the operator is deployed from its
// image as users deploy it, plus config/prometheus as config/default includes it once its `../prometheus` line is
// uncommented. Prometheus scrapes the secure endpoint with its ServiceAccount token (the manager checks it with
// a TokenReview and a SubjectAccessReview), through the ServiceMonitor. The rules are read from the
// PrometheusRule the operator writes in its namespace, by name, never from the operator's sources.
//
// One documented override: `MemcachedOperatorDown` waits `for: 5m`, too long for a test, so the test adds a
// copy of that one alert with `for: 10s` and the label `opkit_test: short-for`, and follows the copy.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  type DeployedOperator,
  deployOperator,
  eventually,
  KubeApiError,
  KubeRest,
  PROMETHEUS_NAMESPACE,
  PrometheusApi,
  type PrometheusTarget,
  testKubeConfig,
} from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { memcached } from '../support/operator.js';

const run = promisify(execFile);
const operatorDir = join(import.meta.dirname, '..', '..');
const namespace = 'memcached-operator-system';
const manager = 'memcached-operator-controller-manager';
const metricsService = `${manager}-metrics-service`;
const RULE_NAME = 'memcached-operator-rules';
const SHORT_FOR = { name: `${RULE_NAME}-short-for`, for: '10s', label: 'short-for' } as const;
const workload = 'memcached-monitoring';

interface Rule {
  readonly record?: string;
  readonly alert?: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}
interface PrometheusRuleObject {
  readonly spec: { readonly groups: readonly { readonly name: string; readonly rules: readonly Rule[] }[] };
}
interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
}

const rest = new KubeRest(testKubeConfig());
const kubeconfig = () => inject('opkitKubeconfig');
let operator: DeployedOperator | undefined;
let prometheus: PrometheusApi;
/** What config/prometheus added, for removing what the namespace's deletion does not take. */
let monitoring: Manifest[] = [];

/** `config/default` rendered by kustomize, from `configDir` (the project's, or a copy). */
async function renderDefault(configDir: string): Promise<Manifest[]> {
  const { stdout } = await run('kubectl', ['kustomize', join(configDir, 'default')], { maxBuffer: 64 << 20 });
  return parseAllDocuments(stdout).map((doc) => doc.toJSON() as Manifest);
}

/**
 * What config/default adds once its commented `../prometheus` line is uncommented, as a kubebuilder user does:
 * the objects of that render that the plain one lacks, named and namespaced by config/default.
 */
async function prometheusConfig(): Promise<Manifest[]> {
  const copy = mkdtempSync(join(tmpdir(), 'memcached-config-'));
  try {
    cpSync(join(operatorDir, 'config'), copy, { recursive: true });
    const kustomization = join(copy, 'default', 'kustomization.yaml');
    const text = readFileSync(kustomization, 'utf8');
    expect(text).toMatch(/^ {2}#- \.\.\/prometheus$/m);
    writeFileSync(kustomization, text.replace(/^ {2}#- \.\.\/prometheus$/m, '  - ../prometheus'));
    const key = (m: Manifest) => `${m.kind}/${m.metadata.namespace ?? ''}/${m.metadata.name}`;
    const plain = new Set((await renderDefault(join(operatorDir, 'config'))).map(key));
    return (await renderDefault(copy)).filter((m) => !plain.has(key(m)));
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

async function kubectl(args: readonly string[], input?: string): Promise<void> {
  const child = execFile('kubectl', [...args], { env: { ...process.env, KUBECONFIG: kubeconfig() } });
  const done = new Promise<void>((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`kubectl ${args.join(' ')}: ${stderr.trim()}`)),
    );
  });
  child.stdin?.end(input ?? '');
  await done;
}

const deploymentPath = (ns: string, name: string) => `/apis/apps/v1/namespaces/${ns}/deployments/${name}`;

async function scale(ns: string, name: string, replicas: number): Promise<void> {
  await rest.request('PATCH', `${deploymentPath(ns, name)}/scale`, {
    body: { spec: { replicas } },
    contentType: 'application/merge-patch+json',
  });
}

/** The manager's scrape target, once Prometheus has discovered it. */
async function managerTarget(): Promise<PrometheusTarget | undefined> {
  return (await prometheus.targets()).find(
    (t) => t.labels.namespace === namespace && t.labels.service === metricsService,
  );
}

/** The rules of the PrometheusRule the operator wrote, by name. */
async function installedRules(): Promise<Rule[]> {
  const object = await eventually(
    `the operator to write the PrometheusRule ${RULE_NAME}`,
    () =>
      rest.request<PrometheusRuleObject>(
        'GET',
        `/apis/monitoring.coreos.com/v1/namespaces/${namespace}/prometheusrules/${RULE_NAME}`,
      ),
    { timeoutMs: 60_000, intervalMs: 500 },
  );
  return object.spec.groups.flatMap((g) => g.rules);
}

function ruleNamed(rules: readonly Rule[], name: string): Rule {
  const rule = rules.find((r) => r.record === name || r.alert === name);
  if (rule === undefined) throw new Error(`the PrometheusRule ${RULE_NAME} has no rule ${name}`);
  return rule;
}

/** The single value of an instant query, once it has exactly one sample equal to `expected`. */
function valueBecomes(expression: string, expected: number, timeoutMs = 90_000): Promise<number> {
  return eventually(
    `${expression} to be ${expected}`,
    async () => {
      const samples = await prometheus.query(expression);
      return samples.length === 1 && samples[0]?.value === expected ? expected : undefined;
    },
    { timeoutMs, intervalMs: 1000 },
  );
}

function alertState(name: string, labels: Record<string, string> = {}) {
  return async () => {
    const alerts = await prometheus.alerts();
    return alerts.find(
      (a) => a.labels.alertname === name && Object.entries(labels).every(([k, v]) => a.labels[k] === v),
    );
  };
}

const multiDocument = (manifests: readonly object[]) => manifests.map((m) => stringify(m)).join('---\n');

/** A copy of one alert of the operator's rules with a short `for`, labelled so the test follows the copy. */
function shortForCopy(alert: Rule) {
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: SHORT_FOR.name, namespace },
    spec: {
      groups: [
        {
          name: `${alert.alert}-short-for`,
          rules: [{ ...alert, for: SHORT_FOR.for, labels: { ...alert.labels, opkit_test: SHORT_FOR.label } }],
        },
      ],
    },
  };
}

beforeAll(async () => {
  const service = await rest.request<{ spec: { clusterIP: string } }>(
    'GET',
    `/api/v1/namespaces/${PROMETHEUS_NAMESPACE}/services/prometheus`,
  );
  prometheus = new PrometheusApi(`http://${service.spec.clusterIP}:9090`);
  operator = await deployOperator({
    rest,
    kubeconfig: kubeconfig(),
    registry: inject('opkitRegistry'),
    operatorDir,
    repository: 'memcached-operator',
    namespace,
  });
  monitoring = await prometheusConfig();
  // Everything Prometheus' configuration and rule files need, at once: the kubelet updates the Secret and
  // ConfigMaps the operator writes them to at its next sync of the Prometheus pod, up to a minute later.
  const down = ruleNamed(await installedRules(), 'MemcachedOperatorDown');
  await kubectl(
    ['apply', '--server-side', '--field-manager=memcached-monitoring-test', '-f', '-'],
    multiDocument([...monitoring, shortForCopy(down)]),
  );
  await rest.request('POST', '/api/v1/namespaces', {
    body: {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: workload, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } },
    },
  });
}, 300_000);

afterAll(async () => {
  if (monitoring.length > 0) {
    await kubectl(['delete', '--ignore-not-found', '-f', '-'], multiDocument(monitoring)).catch(() => {});
  }
  await operator?.undeploy();
  await rest.request('DELETE', `/api/v1/namespaces/${workload}`).catch((error: unknown) => {
    if (!(error instanceof KubeApiError && error.status === 404)) throw error;
  });
  rest.close();
}, 300_000);

describe('the Memcached operator in a real Prometheus', () => {
  it('is scraped over HTTPS through its ServiceMonitor, with Prometheus’ ServiceAccount token', async () => {
    expect(monitoring.map((m) => `${m.kind} ${m.metadata.name}`).sort()).toEqual([
      'ClusterRoleBinding memcached-operator-prometheus-metrics-reader',
      'Role memcached-operator-prometheus',
      'RoleBinding memcached-operator-prometheus',
      'ServiceMonitor memcached-operator-controller-manager-metrics-monitor',
    ]);
    const target = await eventually(
      'the manager to be a healthy scrape target',
      async () => {
        const t = await managerTarget();
        return t?.health === 'up' ? t : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 1000 },
    );
    expect(target.scrapeUrl).toMatch(/^https:\/\/[\d.]+:8443\/metrics$/);
    expect(target.labels.pod).toMatch(new RegExp(`^${manager}-`));
    // The manager's own series arrived through that scrape.
    const series = await prometheus.query(
      `memcached_deployment_size_undesired_count_total{namespace="${namespace}"}`,
    );
    expect(series).toHaveLength(1);
  });

  it('records memcached_operator_up_total as the number of operator pods up', async () => {
    const rule = ruleNamed(await installedRules(), 'memcached_operator_up_total');
    await valueBecomes(rule.record ?? '', 1);
    // The recorded series says what its expression says.
    expect((await prometheus.query(rule.expr)).map((s) => s.value)).toEqual([1]);
  });

  it('fires MemcachedDeploymentSizeUndesired once the operator has repaired a Deployment’s size as often as the rule says', async () => {
    const rule = ruleNamed(await installedRules(), 'MemcachedDeploymentSizeUndesired');
    // `increase(memcached_deployment_size_undesired_count_total[5m]) >= N`: the test drifts the size N times.
    const threshold =
      /^increase\(memcached_deployment_size_undesired_count_total\[\w+\]\)\s*>=\s*(\d+)$/.exec(
        rule.expr,
      )?.[1];
    expect(threshold, `an expression this test knows how to drive: ${rule.expr}`).toBeDefined();
    const drifts = Number(threshold);
    expect(await alertState('MemcachedDeploymentSizeUndesired')()).toBeUndefined();
    await rest.request('POST', `/apis/cache.example.com/v1beta1/namespaces/${workload}/memcacheds`, {
      body: memcached(workload, workload, { replicas: 1 }),
    });
    const replicas = async () =>
      (await rest.request<{ spec: { replicas: number } }>('GET', deploymentPath(workload, workload))).spec
        .replicas;
    await eventually('the Memcached Deployment', async () => (await replicas()) === 1, { timeoutMs: 60_000 });
    for (let drift = 1; drift <= drifts; drift++) {
      await scale(workload, workload, 2);
      await eventually(`the operator to repair drift ${drift}`, async () => (await replicas()) === 1, {
        timeoutMs: 30_000,
      });
      // Each repair counted, and scraped before the next drift.
      await eventually(
        `the counter to reach ${drift} in Prometheus`,
        async () => {
          const [sample] = await prometheus.query(
            `memcached_deployment_size_undesired_count_total{namespace="${namespace}"}`,
          );
          return (sample?.value ?? 0) >= drift;
        },
        { timeoutMs: 60_000, intervalMs: 1000 },
      );
    }
    const alert = await eventually(
      'MemcachedDeploymentSizeUndesired to fire',
      async () => {
        const a = await alertState('MemcachedDeploymentSizeUndesired')();
        return a?.state === 'firing' ? a : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 1000 },
    );
    expect(alert.labels.severity).toBe(rule.labels?.severity);
  });

  it(`fires MemcachedOperatorDown (for: ${SHORT_FOR.for}) while no operator pod is up, and resolves when one is`, async () => {
    const rules = await installedRules();
    const record = ruleNamed(rules, 'memcached_operator_up_total').record ?? '';
    const follow = alertState('MemcachedOperatorDown', { opkit_test: SHORT_FOR.label });
    await eventually(
      'Prometheus to load the short-for copy',
      async () => (await prometheus.ruleGroups()).some((g) => g.name === 'MemcachedOperatorDown-short-for'),
      { timeoutMs: 180_000, intervalMs: 1000 },
    );
    expect(await follow()).toBeUndefined();

    await scale(namespace, manager, 0);
    await valueBecomes(record, 0);
    const firing = await eventually(
      'MemcachedOperatorDown to fire',
      async () => {
        const a = await follow();
        return a?.state === 'firing' ? a : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 1000 },
    );
    expect(firing.labels.severity).toBe('critical');

    await scale(namespace, manager, 1);
    await eventually(
      'the new manager pod to be scraped',
      async () => (await managerTarget())?.health === 'up',
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    await valueBecomes(record, 1);
    await eventually('MemcachedOperatorDown to resolve', async () => (await follow()) === undefined, {
      timeoutMs: 60_000,
      intervalMs: 1000,
    });
  });
});
