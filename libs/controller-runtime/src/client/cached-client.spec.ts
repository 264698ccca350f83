import { describe, expect, it } from 'vitest';
import type { KubeObject, Stored } from '../object.js';
import { FakeClient } from '../testing/fake-client.js';
import { CachedClient } from './cached-client.js';

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

/** A client over a fake API server and a cache that records what it is fed. */
function clientWithCache() {
  const observed: string[] = [];
  const cache = {
    get: () => Promise.reject(new Error('not read in this test')),
    list: () => Promise.reject(new Error('not read in this test')),
    observe: (obj: Stored<KubeObject>) => {
      observed.push(`${obj.metadata.name} ${JSON.stringify((obj as ConfigMap).data)}`);
    },
  };
  return { client: new CachedClient(cache, new FakeClient(), 'test-manager'), observed };
}

const configMap = (data: Record<string, string>): ConfigMap => ({
  ...CONFIG_MAP,
  metadata: { name: 'settings', namespace: 'default' },
  data,
});

describe('CachedClient', () => {
  it('feeds the answer of every write to the cache, so the next read sees it', async () => {
    const { client, observed } = clientWithCache();
    const created = await client.create(configMap({ a: '1' }));
    await client.update({ ...created, data: { a: '2' } });
    await client.patch({ ...CONFIG_MAP, name: 'settings', namespace: 'default' }, { data: { b: '3' } });
    expect(observed).toEqual(['settings {"a":"1"}', 'settings {"a":"2"}', 'settings {"a":"2","b":"3"}']);
  });

  it('keeps dry runs out of the cache: their answer is what the object would become, not what is stored', async () => {
    const { client, observed } = clientWithCache();
    await client.create(configMap({ a: '1' }), { dryRun: true });
    const created = await client.create(configMap({ a: '1' }));
    await client.update({ ...created, data: { a: 'dry' } }, { dryRun: true });
    await client.patch(
      { ...CONFIG_MAP, name: 'settings', namespace: 'default' },
      { data: { a: 'dry' } },
      'merge',
      { dryRun: true },
    );
    expect(observed).toEqual(['settings {"a":"1"}']);
  });
});
