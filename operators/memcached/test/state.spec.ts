import { quantityMillis, runStateTest, type StateTestOptions } from '@opkit/test-cluster/state-testing';
import { KubeRest, testKubeConfig, useOperator, useTestNamespace } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MemcachedSpec, type MemcachedStatus, memcachedCrd } from '../src/index.js';
import { MEMCACHED_IMAGE, memcachedOperator } from './support/operator.js';
import { memcachedReady, operandsMatch } from './support/oracle.js';

// Schema-driven state testing: a Memcached is driven through generated specs (boundaries, every field added
// and removed, quantities spelled several ways, invalid values) and after each the operands must be what the
// spec says, the status must say so, and the operator must go quiet.

const ns = useTestNamespace({
  prefix: 'memcached-state',
  labels: { 'pod-security.kubernetes.io/enforce': 'restricted' },
});
useOperator({ ...memcachedOperator, namespace: () => ns.name });

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
  ready: memcachedReady,
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
    // 500 steps take about 4 minutes on 2 shared cores: a change takes about 0.7 s (0.35 s until the status
    // says Available, then 0.3 s of quiet), an invalid step 10 ms.
    const report = await runStateTest({ ...memcachedStateTest(rest), steps: 500 });
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
