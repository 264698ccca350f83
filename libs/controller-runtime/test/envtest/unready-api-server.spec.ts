// A manager started against an API server that is not ready yet (the envtest tier: etcd and kube-apiserver, with
// a loopback proxy in front that plays the unready server): transient answers — 503 while the server installs
// its paths, 429, connection resets — are waited out with back-off, as controller-runtime's start-up does; a
// forbidden discovery and a kind the server does not serve still fail the manager, with a message naming it.
import { randomBytes } from 'node:crypto';
import { envtest } from '@opkit/test-cluster/envtest';
import { eventually } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controllerManagedBy } from '../../src/builder/builder.js';
import { directClient } from '../../src/client/direct-client.js';
import type { ClusterConnection } from '../../src/internal/transport/kubeconfig.js';
import { NoKindMatchError, type ResourceMapping } from '../../src/internal/transport/resource-mapper.js';
import { CONFIG_MAP, type ConfigMap } from '../../src/kinds/kinds.js';
import { createLogger } from '../../src/log/index.js';
import { Manager } from '../../src/manager/manager.js';
import { RuntimeMetrics } from '../../src/metrics/runtime-metrics.js';
import { kind } from '../../src/object.js';
import { NOT_READY, TOO_MANY_REQUESTS, UnreadyApiProxy } from '../support/unready-api-proxy.js';

const namespace = `unready-${randomBytes(4).toString('hex')}`;
const api = () => directClient(envtest().kubeConfig);

interface Logged {
  readonly level: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** A manager with one ConfigMap controller that records what it reconciles, and its log lines. */
function configMapManager(kubeConfig: ClusterConnection, watched = CONFIG_MAP) {
  const lines: Logged[] = [];
  const reconciled = new Set<string>();
  const manager = new Manager({
    kubeConfig,
    namespaces: [namespace],
    metrics: new RuntimeMetrics({ processMetrics: false }),
    logger: createLogger({ level: 'info', sink: (line) => lines.push(JSON.parse(line) as Logged) }),
    gracefulShutdownTimeoutMs: 5_000,
  });
  controllerManagedBy(manager)
    .for(watched)
    .named('configmaps')
    .complete(async (request) => {
      reconciled.add(`${request.namespace}/${request.name}`);
    });
  return { manager, lines, reconciled };
}

/** Whether `promise` has settled by now. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  const pending = Symbol('pending');
  const first = await Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    Promise.resolve(pending),
  ]);
  return first !== pending;
}

let proxy: UnreadyApiProxy;

beforeAll(async () => {
  await api().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  await api().create<ConfigMap>({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings', namespace },
    data: { a: '1' },
  });
  proxy = await UnreadyApiProxy.start(envtest().kubeConfig);
});

afterAll(async () => {
  await proxy?.close();
  await api()
    .delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace })
    .catch(() => {});
});

describe('a manager started before the API server is ready', () => {
  it('keeps running through 503, a connection reset and 429, then reconciles', async () => {
    proxy.fault = NOT_READY;
    const { manager, lines, reconciled } = configMapManager(proxy.connection);
    // A runnable that maps a kind at start, as an operator's installer of optional resources does.
    let mapped: ResourceMapping | undefined;
    manager.add({
      needLeaderElection: false,
      start: async () => {
        mapped = await manager.apiClient.mapping('v1', 'Secret');
      },
    });
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    running.catch(() => {}); // awaited below; a failure must not wait for the test to get there
    try {
      await eventually('the manager to ask the unready server twice', async () => proxy.faulted.length >= 2);
      expect(await settled(running), 'the manager stopped on a 503').toBe(false);
      proxy.faults = ['reset', TOO_MANY_REQUESTS];
      proxy.fault = undefined;
      await eventually('the controller to reconcile the ConfigMap', async () =>
        reconciled.has(`${namespace}/settings`),
      );
      expect(proxy.faults, 'every queued fault was answered').toEqual([]);
      // The runnable's own retry may still be in its back-off when the controller has reconciled.
      await eventually('the runnable to map its kind', async () => mapped !== undefined);
      expect(mapped).toMatchObject({ resource: 'secrets', namespaced: true });
    } finally {
      stop.abort();
      await running;
    }
    const retries = lines.filter((l) => l.level === 'info' && l.msg === 'API server unavailable; retrying');
    // One line per operation and reason, not one per attempt: repeated 503s share one.
    const said = retries.map((l) => `${l.operation}: ${l.reason}`);
    expect(new Set(said).size, said.join('\n')).toBe(said.length);
    expect(said).toContain('discovery of ConfigMap (v1): 503 ServiceUnavailable');
    expect(said).toContain('discovery of Secret (v1): 503 ServiceUnavailable');
    expect(new Set(retries.map((l) => l.reason))).toEqual(
      new Set(['503 ServiceUnavailable', 'ECONNRESET', '429 TooManyRequests']),
    );
    expect(lines.filter((l) => l.level === 'error' || l.level === 'warn')).toEqual([]);
  }, 60_000);

  it('fails with one clear error when discovery is forbidden', async () => {
    proxy.fault = { status: 403, reason: 'Forbidden', message: 'forbidden: user cannot get path "/api/v1"' };
    const { manager } = configMapManager(proxy.connection);
    const started = Date.now();
    try {
      await expect(manager.start(new AbortController().signal)).rejects.toThrow(
        /ConfigMap.*403 Forbidden.*forbidden: user cannot get path/,
      );
    } finally {
      proxy.fault = undefined;
    }
    expect(Date.now() - started, 'a permanent error is not retried').toBeLessThan(5_000);
  });

  it('fails when a watched kind is not served, as before', async () => {
    const { manager } = configMapManager(
      envtest().kubeConfig,
      kind<ConfigMap>('nowhere.example.com/v1', 'ConfigMap'),
    );
    await expect(manager.start(new AbortController().signal)).rejects.toBeInstanceOf(NoKindMatchError);
  });
});
