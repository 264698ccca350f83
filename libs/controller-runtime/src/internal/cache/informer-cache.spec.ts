import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../errors/errors.js';
import type { Kind, KubeObject } from '../../object.js';
import { statusReply, TestingApiServer } from '../../testing/api-server.js';
import {
  CacheSyncTimeoutError,
  cacheOptionsFor,
  cacheSelects,
  InformerCache,
  NamespaceNotCachedError,
} from './informer-cache.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

const CONFIG_MAP: Kind = { apiVersion: 'v1', kind: 'ConfigMap' };

function configMap(name: string, namespace: string, resourceVersion: string, data?: Record<string, string>) {
  return {
    ...CONFIG_MAP,
    metadata: {
      name,
      namespace,
      uid: `uid-${name}`,
      resourceVersion,
      labels: { app: name.split('-')[0]! },
      managedFields: [{ manager: 'kubectl' }],
    },
    ...(data ? { data } : {}),
  } satisfies ConfigMap;
}

let server: TestingApiServer;
let stop: AbortController;
let cache: InformerCache | undefined;

beforeEach(async () => {
  server = await TestingApiServer.start();
  server.setObjects(
    [
      configMap('web-1', 'ns1', '10', { role: 'front' }),
      configMap('db-1', 'ns1', '11', { role: 'back' }),
      configMap('web-2', 'ns2', '12', { role: 'front' }),
      configMap('web-3', 'ns3', '13', { role: 'front' }),
    ],
    '13',
  );
  stop = new AbortController();
  cache = undefined;
});

afterEach(async () => {
  stop.abort();
  await server.close();
  await cache?.stopped();
});

function newCache(namespaces: readonly string[] = ['ns1', 'ns2']): InformerCache {
  cache = new InformerCache({ client: server.client(), namespaces });
  return cache;
}

describe('InformerCache', () => {
  it('GIVEN a cache that has not been started WHEN it is read THEN it throws CacheSyncTimeoutError', async () => {
    const reader = newCache();

    await expect(reader.get(CONFIG_MAP, 'web-1', 'ns1')).rejects.toThrow(CacheSyncTimeoutError);
    expect(reader.started).toBe(false);
  });

  it('GIVEN a started cache WHEN objects are read THEN they come from one list per namespace, without managedFields, and deep-frozen', async () => {
    const reader = newCache();
    reader.start(stop.signal);

    const web = await reader.get<ConfigMap>(CONFIG_MAP, 'web-1', 'ns1');
    const again = await reader.get<ConfigMap>(CONFIG_MAP, 'web-1', 'ns1');

    expect(web).toBe(again);
    expect(web.data).toEqual({ role: 'front' });
    expect(web.metadata.managedFields).toBeUndefined();
    expect(Object.isFrozen(web.metadata)).toBe(true);
    expect(server.lists.map((r) => r.path).sort()).toEqual([
      '/api/v1/namespaces/ns1/configmaps',
      '/api/v1/namespaces/ns2/configmaps',
    ]);
    expect(await reader.hasSynced()).toBe(true);
  });

  it('GIVEN an index registered while discovery of its kind fails WHEN the kind is served later THEN its informer has the index', async () => {
    server.reply('discovery', statusReply(503, 'ServiceUnavailable'));
    const reader = newCache();
    const failed = reader.informerFor(CONFIG_MAP);

    await reader.indexField<ConfigMap>(CONFIG_MAP, 'data.role', (m) => (m.data?.role ? [m.data.role] : []));
    await expect(failed).rejects.toThrow(/503|ServiceUnavailable/);
    reader.start(stop.signal);

    const list = await reader.list(CONFIG_MAP, { matchingFields: { 'data.role': 'front' } });
    expect(list.items.map((o) => o.metadata.name).sort()).toEqual(['web-1', 'web-2']);
  });

  it('GIVEN a started cache WHEN it lists THEN it honours namespace, label selector and registered fields', async () => {
    const reader = newCache();
    await reader.indexField<ConfigMap>(CONFIG_MAP, 'data.role', (m) => (m.data?.role ? [m.data.role] : []));
    reader.start(stop.signal);

    const names = async (options: Parameters<InformerCache['list']>[1]) =>
      (await reader.list(CONFIG_MAP, options)).items.map((o) => o.metadata.name).sort();

    expect(await names({})).toEqual(['db-1', 'web-1', 'web-2']);
    expect(await names({ namespace: 'ns1' })).toEqual(['db-1', 'web-1']);
    expect(await names({ labelSelector: 'app=web' })).toEqual(['web-1', 'web-2']);
    expect(await names({ matchingFields: { 'data.role': 'front' }, namespace: 'ns2' })).toEqual(['web-2']);
    expect(await reader.list(CONFIG_MAP)).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMapList' });
  });

  it('GIVEN a started cache WHEN an absent object is read THEN it throws a 404 ApiError', async () => {
    const reader = newCache();
    reader.start(stop.signal);

    const error = await reader.get(CONFIG_MAP, 'missing', 'ns1').catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 404,
      reason: 'NotFound',
      message: 'ConfigMap "missing" not found',
    });
    // Misses are control flow in reconcilers: no stack is captured for them, and none is lost elsewhere.
    expect((error as Error).stack).toBe('ApiError: ConfigMap "missing" not found');
    expect(new Error('after').stack).toContain('\n    at ');
  });

  it('GIVEN a cache of some namespaces WHEN another namespace is read THEN it throws NamespaceNotCachedError', async () => {
    const reader = newCache();
    reader.start(stop.signal);

    await expect(reader.get(CONFIG_MAP, 'web-3', 'ns3')).rejects.toThrow(NamespaceNotCachedError);
    await expect(reader.list(CONFIG_MAP, { namespace: 'ns3' })).rejects.toThrow(
      'unable to read ConfigMap in namespace "ns3": the cache only watches ns1, ns2',
    );
  });

  it('GIVEN a cache of all namespaces THEN any namespace can be read', async () => {
    const reader = newCache([]);
    reader.start(stop.signal);

    expect((await reader.get(CONFIG_MAP, 'web-3', 'ns3')).metadata.name).toBe('web-3');
    expect(server.lists.map((r) => r.path)).toEqual(['/api/v1/configmaps']);
  });

  it('GIVEN a synced cache WHEN a write result is observed THEN the next read returns it', async () => {
    const reader = newCache();
    reader.start(stop.signal);
    await reader.get(CONFIG_MAP, 'web-1', 'ns1');

    reader.observe(configMap('web-1', 'ns1', '20', { role: 'written' }));

    await vi.waitFor(async () =>
      expect((await reader.get<ConfigMap>(CONFIG_MAP, 'web-1', 'ns1')).data).toEqual({ role: 'written' }),
    );
  });

  it('GIVEN a kind selected by label through cacheOptionsFor WHEN it is read and written THEN it lists and watches by the selector, and a write the selector leaves out is reported', async () => {
    const unselected: string[] = [];
    const byObject = cacheOptionsFor([CONFIG_MAP], { labelSelector: 'app=web' });
    cache = new InformerCache({
      client: server.client(),
      namespaces: ['ns1'],
      byObject,
      onUnselectedWrite: (obj, type, selector) =>
        unselected.push(`${type.kind} ${obj.metadata.name} ${selector}`),
    });
    cache.start(stop.signal);

    await cache.list(CONFIG_MAP);
    // The API server selects (this test server does not): the cache asks it to.
    expect(server.lists.map((r) => r.query.labelSelector)).toEqual(['app=web']);
    await vi.waitFor(() => expect(server.watches.map((r) => r.query.labelSelector)).toEqual(['app=web']));
    cache.observe(configMap('db-2', 'ns1', '20'));
    await vi.waitFor(() => expect(unselected).toEqual(['ConfigMap db-2 app=web']));
    expect(cacheSelects(byObject, configMap('web-9', 'ns1', '1'))).toBe(true);
    expect(cacheSelects(byObject, configMap('db-9', 'ns1', '1'))).toBe(false);
    expect(cacheSelects(byObject, { apiVersion: 'v1', kind: 'Secret', metadata: {} })).toBe(true);
  });

  it('GIVEN a list that never answers WHEN waiting for sync THEN it times out with CacheSyncTimeoutError', async () => {
    server.reply('list', { status: 200, after: new Promise(() => {}) });
    const reader = newCache([]);
    await reader.informerFor(CONFIG_MAP);
    reader.start(stop.signal);

    await expect(reader.waitForCacheSync(100)).rejects.toThrow('caches did not sync within 100 ms');
    expect(await reader.hasSynced()).toBe(false);
  });

  it('GIVEN an informer whose discovery fails while the cache starts THEN the caller gets the error and nothing is left unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const reader = newCache([]);
      const failing = reader.informerFor({ apiVersion: 'example.com/v1', kind: 'Unknown' });
      await reader.informerFor(CONFIG_MAP);
      reader.start(stop.signal);
      await expect(failing).rejects.toThrow();
      await reader.waitForCacheSync(5_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
