import { runStateTest, type StateTestOptions } from '@opkit/test-cluster/state-testing';
import { KubeRest, testKubeConfig, useOperator, useTestNamespace } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisClusterSpec, type RedisClusterStatus, redisClusterCrd } from '../src/index.js';
import { redisOperator } from './support/operator.js';
import { CONFIG_DEFAULTS, clusterMatches, clusterReady } from './support/oracle.js';

// Schema-driven state testing of the RedisCluster on the real node: generated specs (sizes, replicas per
// primary, resources, redis.conf settings added and removed), the same spec spelled other ways, and invalid
// values. After each, the Redis nodes must form the cluster the spec describes and run its settings, the
// status must say so, and the operator must go quiet.
//
// A change here is slow (a scale moves slots between primaries, a settings or resources change restarts every
// pod in turn: 10 to 60 s, 48 s on average), while a respelling is checked in a tenth of a second and an
// invalid value in milliseconds. So the mix favours the cheap kinds: 300 steps hold about 3 changes, 90
// respellings and 210 invalid values, in about 3 minutes. Others on demand: STATE_SEED=<n> draws other specs,
// STATE_STEPS=2000 runs longer.

const ns = useTestNamespace({
  prefix: 'redis-state',
  labels: { 'pod-security.kubernetes.io/enforce': 'restricted' },
});
useOperator({ ...redisOperator, namespace: () => ns.name });

const configValues: Readonly<Record<string, readonly string[]>> = {
  'maxmemory-policy': ['noeviction', 'allkeys-lru', 'volatile-lru', 'allkeys-random'],
  hz: ['10', '20', '50'],
  timeout: ['0', '60', '300'],
  'slowlog-log-slower-than': ['10000', '5000', '20000'],
};

/** The state test of the RedisCluster: its kinds, oracle, readiness and what the schema cannot say. */
const redisStateTest = (rest: KubeRest): StateTestOptions<RedisClusterSpec, RedisClusterStatus> => ({
  rest,
  namespace: ns.name,
  crd: redisClusterCrd,
  owned: [
    { apiVersion: 'apps/v1', plural: 'statefulsets' },
    { apiVersion: 'v1', plural: 'services' },
    { apiVersion: 'v1', plural: 'configmaps' },
    { apiVersion: 'v1', plural: 'secrets' },
    { apiVersion: 'policy/v1', plural: 'poddisruptionbudgets' },
  ],
  initial: {
    size: 6,
    resources: { requests: { cpu: '50m', memory: '32Mi' }, limits: { memory: '256Mi' } },
    config: { 'maxmemory-policy': 'allkeys-lru', hz: '20' },
  },
  oracle: clusterMatches,
  ready: clusterReady,
  hints: {
    // Every pod runs on one real node: sizes stay small, and requests within what it has. Every primary
    // keeps a replica: the operator does not restart a primary that has none on an emptyDir (its keys would
    // be lost) and says so in Progressing (RestartBlocked) instead, so such a spec never converges.
    size: { values: [6, 8], invalid: [2, 121] },
    replicasPerPrimary: { values: [1, 2], invalid: [-1, 6] },
    // One Redis image is at hand offline; storage is fixed at creation; the password Secret is the user's.
    image: { skip: true },
    storage: { skip: true },
    auth: { skip: true },
    config: { keys: Object.keys(CONFIG_DEFAULTS), invalid: [{ port: '7000' }, { 'Not-A-Directive': 'x' }] },
    ...Object.fromEntries(
      Object.entries(configValues).map(([key, values]) => [
        `config.${key}`,
        { values, invalid: [`${values[0]}\nrequirepass x`] },
      ]),
    ),
    'resources.limits': { keys: ['cpu', 'memory'] },
    'resources.requests': { keys: ['cpu', 'memory'] },
    'resources.limits.cpu': { quantity: { min: '200m', max: '2', step: '100m' } },
    'resources.limits.memory': { quantity: { min: '128Mi', max: '512Mi', step: '1Mi' } },
    'resources.requests.cpu': { quantity: { min: '10m', max: '100m', step: '10m' } },
    'resources.requests.memory': { quantity: { min: '16Mi', max: '64Mi', step: '1Mi' } },
  },
  mix: { change: 0.01, respell: 0.29, invalid: 0.7 },
  settleMs: Number(process.env.STATE_SETTLE_MS ?? 500),
  stepTimeoutMs: 240_000,
  namePrefix: 'redis',
  log: (line) => console.log(line),
});

let rest: KubeRest;
beforeAll(() => {
  rest = new KubeRest(testKubeConfig());
});
afterAll(() => rest.close());

describe('the RedisCluster operator, driven through generated specs', () => {
  it('forms the cluster every valid spec describes, refuses every invalid one naming the field, and then goes quiet', async () => {
    const report = await runStateTest({ ...redisStateTest(rest), steps: 300 });
    console.log(
      `state test: ${report.steps} steps (seed ${report.seed}) in ${(report.durationMs / 1000).toFixed(1)} s: ` +
        `${JSON.stringify(report.counts)}, mean ms ${JSON.stringify(report.meanMs)}, ` +
        `converged after ${report.meanConvergedMs} ms`,
    );
    expect(report.counts.change).toBeGreaterThan(0);
  }, 1_800_000);
});
