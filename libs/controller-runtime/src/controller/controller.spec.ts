import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InformerCache } from '../internal/cache/informer-cache.js';
import { createLogger } from '../log/index.js';
import { RuntimeMetrics } from '../metrics/runtime-metrics.js';
import { type KubeObject, kind, type Stored } from '../object.js';
import { statusReply, TestingApiServer } from '../testing/api-server.js';
import type { WatchSpec } from './controller.js';
import { Controller } from './controller.js';

const CONFIG_MAP = kind<ConfigMap>('v1', 'ConfigMap');

type ConfigMap = KubeObject & { data: Record<string, string> };

const configMap = (name: string, data: Record<string, string>): ConfigMap => ({
  ...CONFIG_MAP,
  metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '1' },
  data,
});

let server: TestingApiServer;
let stop: AbortController;
let running: Promise<void> | undefined;

beforeEach(async () => {
  server = await TestingApiServer.start();
  server.setObjects([configMap('a', { target: 'x' }), configMap('b', { target: 'y' })], '10');
  stop = new AbortController();
  running = undefined;
});

afterEach(async () => {
  stop.abort();
  await running;
  await server.close();
});

/** A controller over ConfigMaps whose watches are `watches`; it records the keys it reconciles. */
function startController(
  watches: (cache: InformerCache) => Omit<WatchSpec, 'type' | 'predicates'>[],
  options: { cacheSyncTimeoutMs?: number } = {},
) {
  const cache = new InformerCache({ client: server.client(), namespaces: [] });
  const logged: string[] = [];
  const reconciled: string[] = [];
  const controller = new Controller(
    { name: 'test', ...options },
    async (request) => {
      reconciled.push(`${request.namespace}/${request.name}`);
    },
    {
      cache,
      metrics: new RuntimeMetrics({ registry: new Registry() }),
      logger: createLogger({ sink: (line) => logged.push(line) }),
    },
  );
  for (const spec of watches(cache)) controller.watch({ type: CONFIG_MAP, predicates: [], ...spec });
  cache.start(stop.signal);
  running = controller.start(stop.signal);
  return { reconciled, logged };
}

describe('Controller watches', () => {
  it('GIVEN a map function that lists from the cache (a promise) THEN the requests it resolves to are reconciled', async () => {
    const { reconciled } = startController((cache) => [
      {
        map: async (obj) => {
          const all = await cache.list<ConfigMap>(CONFIG_MAP);
          const target = all.items.find((o) => o.metadata.name === obj.metadata.name)?.data.target;
          return target ? [{ namespace: 'default', name: target }] : [];
        },
      },
    ]);

    await vi.waitFor(() => expect(reconciled.sort()).toEqual(['default/x', 'default/y']));
  });

  it('GIVEN a map function that rejects THEN it is logged with the kind, queues nothing, and other watches still work', async () => {
    const { reconciled, logged } = startController(() => [
      { map: () => Promise.reject(new Error('cache read failed')) },
      { map: (obj) => [{ namespace: 'default', name: `sync-${obj.metadata.name}` }] },
    ]);

    await vi.waitFor(() => expect(reconciled.sort()).toEqual(['default/sync-a', 'default/sync-b']));
    const failures = logged.map((line) => JSON.parse(line)).filter((l) => l.level === 'error');
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatchObject({
      msg: 'a watch map function failed; the event queues nothing',
      error: 'cache read failed',
      kind: 'ConfigMap',
    });
  });
});

const byName = (obj: Stored<KubeObject>) => [{ namespace: 'default', name: obj.metadata.name }];

describe('Controller start against an API server that is not ready', () => {
  it('GIVEN discovery answers 503 THEN the controller waits it out and reconciles', async () => {
    server.reply('discovery', statusReply(503, 'ServiceUnavailable'));
    const { reconciled } = startController(() => [{ map: byName }]);

    await vi.waitFor(() => expect(reconciled.sort()).toEqual(['default/a', 'default/b']), { timeout: 5_000 });
    expect(server.requests.filter((r) => r.path === '/api/v1')).toHaveLength(2);
  });

  it('GIVEN the first list answers 503 past the sync timeout THEN the controller keeps waiting and reconciles', async () => {
    server.reply('list', statusReply(503, 'ServiceUnavailable'));
    const { reconciled, logged } = startController(() => [{ map: byName }], { cacheSyncTimeoutMs: 300 });

    await vi.waitFor(() => expect(reconciled.sort()).toEqual(['default/a', 'default/b']), { timeout: 5_000 });
    const waits = logged
      .map((line) => JSON.parse(line))
      .filter((l) => l.msg.startsWith('caches not synced yet'));
    expect(waits[0]).toMatchObject({
      level: 'info',
      why: [expect.stringContaining('ConfigMap: GET /api/v1')],
    });
  });

  it('GIVEN the first list is forbidden THEN the sync timeout fails the controller, naming the kind and the answer', async () => {
    for (let i = 0; i < 5; i++) server.reply('list', statusReply(403, 'Forbidden'));
    const { reconciled } = startController(() => [{ map: byName }], { cacheSyncTimeoutMs: 300 });

    await expect(running).rejects.toThrow(
      /controller test: caches did not sync within 300 ms \(ConfigMap: GET \/api\/v1\/configmaps: 403 Forbidden/,
    );
    expect(reconciled).toEqual([]);
    running = undefined;
  });
});
