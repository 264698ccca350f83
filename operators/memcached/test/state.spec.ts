import { findStatusCondition } from '@opkit/controller-runtime';
import {
  type Oracle,
  quantitiesEqual,
  quantityCeilIn,
  quantityMillis,
  runStateTest,
  type StateTestOptions,
} from '@opkit/test-cluster/state-testing';
import { KubeRest, testKubeConfig, useTestNamespace } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MemcachedSpec, type MemcachedStatus, memcachedCrd } from '../src/index.js';
import { MEMCACHED_IMAGE, useOperator } from './support/operator.js';

// Schema-driven state testing: a Memcached is driven through generated specs (boundaries, every field added
// and removed, quantities spelled several ways, invalid values) and after each the operands must be what the
// spec says, the status must say so, and the operator must go quiet.

const ns = useTestNamespace({
  prefix: 'memcached-state',
  labels: { 'pod-security.kubernetes.io/enforce': 'restricted' },
});
useOperator(() => ns.name);

interface Container {
  image: string;
  args: string[];
  ports: { containerPort: number }[];
  resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
}
interface Deployment {
  spec: { replicas: number; template: { spec: { containers: Container[] } } };
}
interface Service {
  spec: { ports: { port: number }[] };
}
interface PodDisruptionBudget {
  spec: { maxUnavailable?: number | string };
}

type Quantities = Readonly<Record<string, string | number>> | undefined;

/** Where two resource lists differ, comparing quantities by value (the API server stores them canonical). */
function quantityDifferences(what: string, actual: Quantities, expected: Quantities): string[] {
  const keys = new Set([...Object.keys(actual ?? {}), ...Object.keys(expected ?? {})]);
  return [...keys]
    .filter((k) => {
      const a = actual?.[k];
      const e = expected?.[k];
      return a === undefined || e === undefined || !quantitiesEqual(a, e);
    })
    .map((k) => `${what}.${k} is ${actual?.[k]}, the spec says ${expected?.[k]}`);
}

/** The operands as the spec says, worked out here from the spec alone (not from the operator's code). */
const operandsMatch: Oracle<MemcachedSpec> = async ({ spec, object, rest, namespace }) => {
  const at = (path: string) => `/${path.replace('{ns}', namespace)}/${object.metadata.name}`;
  const problems: string[] = [];
  const differ = (what: string, actual: unknown, expected: unknown) => {
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      problems.push(`${what} is ${JSON.stringify(actual)}, the spec says ${JSON.stringify(expected)}`);
    }
  };
  const port = spec.port?.containerPort ?? 11211;
  const deployment = await rest.request<Deployment>('GET', at('apis/apps/v1/namespaces/{ns}/deployments'));
  const [container] = deployment.spec.template.spec.containers;
  differ('Deployment replicas', deployment.spec.replicas, spec.replicas);
  differ('image', container?.image, spec.image ?? MEMCACHED_IMAGE);
  differ('args', container?.args, [
    `--port=${port}`,
    `--memory-limit=${quantityCeilIn(spec.memory ?? '64Mi', '1Mi')}`,
    `--conn-limit=${spec.maxConnections ?? 1024}`,
    `--threads=${spec.threads}`,
    `--max-item-size=${spec.maxItemSize ?? '1m'}`,
    ...(spec.extraArgs ?? []),
  ]);
  differ(
    'container port',
    container?.ports.map((p) => p.containerPort),
    [port],
  );
  problems.push(
    ...quantityDifferences('limits', container?.resources?.limits, spec.resources?.limits),
    ...quantityDifferences('requests', container?.resources?.requests, spec.resources?.requests),
  );
  const service = await rest.request<Service>('GET', at('api/v1/namespaces/{ns}/services'));
  differ(
    'Service ports',
    service.spec.ports.map((p) => p.port),
    [port],
  );
  const pdb = await rest
    .request<PodDisruptionBudget>('GET', at('apis/policy/v1/namespaces/{ns}/poddisruptionbudgets'))
    .catch(() => undefined);
  differ('PodDisruptionBudget maxUnavailable', pdb?.spec.maxUnavailable, spec.replicas > 1 ? 1 : undefined);
  return problems;
};

const MI = quantityMillis('1Mi') ?? 0n;

/**
 * What the validating webhook adds to the schema: item memory plus 32Mi fits the memory limit, and no request
 * is above its limit.
 */
function admissible(spec: MemcachedSpec): boolean {
  const memory = quantityMillis(spec.memory ?? '64Mi') ?? 0n;
  const limits = spec.resources?.limits ?? {};
  const requests = spec.resources?.requests ?? {};
  return (
    (limits.memory === undefined || memory + 32n * MI <= (quantityMillis(limits.memory) ?? 0n)) &&
    Object.entries(requests).every(
      ([name, request]) =>
        limits[name] === undefined || (quantityMillis(request) ?? 0n) <= (quantityMillis(limits[name]) ?? 0n),
    )
  );
}

const quantityHints = (min: string, max: string, step: string) => ({ quantity: { min, max, step } });

/** The state test of the Memcached: its kinds, oracle, readiness and what the schema cannot say. */
const memcachedStateTest = (rest: KubeRest): StateTestOptions<MemcachedSpec, MemcachedStatus> => ({
  rest,
  namespace: ns.name,
  crd: memcachedCrd,
  owned: [
    { apiVersion: 'apps/v1', plural: 'deployments' },
    { apiVersion: 'v1', plural: 'services' },
    { apiVersion: 'policy/v1', plural: 'poddisruptionbudgets' },
  ],
  initial: { replicas: 1 },
  oracle: operandsMatch,
  ready: (status, generation, object) =>
    status?.observedGeneration === generation &&
    status.readyReplicas === object.spec.replicas &&
    findStatusCondition(status.conditions, 'Available')?.status === 'True',
  hints: {
    memory: { quantity: { min: '16Mi', max: '64Gi', step: '1Mi', refusedOutside: true } },
    maxItemSize: { values: ['1k', '512k', '1m', '1024k', '2m'] },
    image: { values: [MEMCACHED_IMAGE, 'docker.io/library/memcached:1.6.38'] },
    'resources.limits': { keys: ['cpu', 'memory'] },
    'resources.requests': { keys: ['cpu', 'memory'] },
    'resources.limits.cpu': quantityHints('100m', '8', '100m'),
    'resources.requests.cpu': quantityHints('100m', '8', '100m'),
    'resources.limits.memory': quantityHints('64Mi', '64Gi', '1Mi'),
    'resources.requests.memory': quantityHints('64Mi', '64Gi', '1Mi'),
  },
  admissible,
  settleMs: Number(process.env.STATE_SETTLE_MS ?? 300),
  stepTimeoutMs: 15_000,
  log: (line) => console.log(line),
});

let rest: KubeRest;
beforeAll(() => {
  rest = new KubeRest(testKubeConfig());
});
afterAll(() => rest.close());

describe('the Memcached operator, driven through generated specs', () => {
  it('converges to every valid spec, refuses every invalid one naming the field, and then goes quiet', async () => {
    // 400 steps keep the file within 4 minutes on 2 shared cores: a change takes about 0.7 s (0.35 s until
    // the status says Available, then 0.3 s of quiet), an invalid step 10 ms.
    const report = await runStateTest({ ...memcachedStateTest(rest), steps: 400 });
    console.log(
      `state test: ${report.steps} steps (seed ${report.seed}) in ${(report.durationMs / 1000).toFixed(1)} s: ` +
        `${JSON.stringify(report.counts)}, mean ms ${JSON.stringify(report.meanMs)}, ` +
        `converged after ${report.meanConvergedMs} ms`,
    );
    expect(report.counts.change).toBeGreaterThan(0);
  }, 600_000);

  // What earlier seeds found, shrunk; each failed before its fix.
  it('removes container resources the spec no longer has', async () => {
    await runStateTest({
      ...memcachedStateTest(rest),
      specs: [{ replicas: 2, resources: { limits: { cpu: '0.1' } } }, { replicas: 2 }],
    });
  });

  it('takes an empty list of requests as none and goes quiet', async () => {
    await runStateTest({
      ...memcachedStateTest(rest),
      specs: [
        { replicas: 1, resources: { requests: { cpu: '6300m' } } },
        { replicas: 1, resources: { requests: {} } },
      ],
    });
  });

  it('refuses requests above their limits, which the Deployment could never run', async () => {
    const refusal = await rest
      .request('POST', `/apis/cache.example.com/v1beta1/namespaces/${ns.name}/memcacheds`, {
        body: {
          apiVersion: 'cache.example.com/v1beta1',
          kind: 'Memcached',
          metadata: { name: 'over', namespace: ns.name },
          spec: { replicas: 1, resources: { limits: { cpu: '100m' }, requests: { cpu: '8' } } },
        },
      })
      .then(
        () => 'accepted',
        (error: Error) => error.message,
      );
    expect(refusal).toContain(
      'spec.resources.requests.cpu: Invalid value: "8": must be at most resources.limits.cpu (100m)',
    );
  });
});
