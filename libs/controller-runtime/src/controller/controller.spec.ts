import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InformerCache } from '../internal/cache/informer-cache.js';
import { createLogger } from '../log/index.js';
import { RuntimeMetrics } from '../metrics/runtime-metrics.js';
import { type KubeObject, kind } from '../object.js';
import { TestingApiServer } from '../testing/api-server.js';
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
function startController(watches: (cache: InformerCache) => Omit<WatchSpec, 'type' | 'predicates'>[]) {
  const cache = new InformerCache({ client: server.client(), namespaces: [] });
  const logged: string[] = [];
  const reconciled: string[] = [];
  const controller = new Controller(
    { name: 'test' },
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
