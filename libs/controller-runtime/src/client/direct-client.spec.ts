import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import type { Kind } from '../object.js';
import { TestingApiServer } from '../testing/api-server.js';
import type { FakeClient } from '../testing/fake-client.js';
import type { CachedClient } from './cached-client.js';
import { directClient as connect, type DirectClient } from './direct-client.js';
import type { ObjectClient } from './object-client.js';

const CONFIG_MAP: Kind = { apiVersion: 'v1', kind: 'ConfigMap' };
const settings = { ...CONFIG_MAP, metadata: { name: 'settings', namespace: 'ns' }, data: { mode: 'fast' } };

let api: TestingApiServer;
const clients: DirectClient[] = [];

beforeEach(async () => {
  api = await TestingApiServer.start();
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await api.close();
});

/** A direct client of the testing server, with a field manager of its own when given one. */
const directClient = (fieldManager?: string): DirectClient => {
  const client = connect(api.kubeConfig(), { fieldManager });
  clients.push(client);
  return client;
};

/** The requests after discovery, as method, path and query. */
const calls = () => api.requests.filter((r) => r.path !== '/api/v1');

describe('the client interface', () => {
  it('is implemented by the cached, the direct and the fake client alike', () => {
    expectTypeOf<CachedClient>().toExtend<ObjectClient>();
    expectTypeOf<DirectClient>().toExtend<ObjectClient>();
    expectTypeOf<FakeClient>().toExtend<ObjectClient>();
  });
});

describe('DirectClient.list', () => {
  it('sends matchingFields to the API server as a field selector, after any fieldSelector', async () => {
    await directClient().list(CONFIG_MAP, {
      namespace: 'ns',
      fieldSelector: 'metadata.namespace=ns',
      matchingFields: { 'metadata.name': 'settings' },
    });

    expect(calls()).toEqual([
      {
        method: 'GET',
        path: '/api/v1/namespaces/ns/configmaps',
        query: { fieldSelector: 'metadata.namespace=ns,metadata.name=settings' },
      },
    ]);
  });

  it('escapes the characters a field selector value cannot hold as they are', async () => {
    await directClient().list(CONFIG_MAP, { matchingFields: { 'metadata.name': 'a,b=c\\d' } });

    expect(calls()[0]?.query.fieldSelector).toBe('metadata.name=a\\,b\\=c\\\\d');
  });
});

describe('DirectClient field manager', () => {
  it('records writes under its own field manager unless the options name another', async () => {
    const client = directClient('greeter');
    // The testing server answers writes with 404; what matters here is what was sent.
    await client.create(settings).catch(() => {});
    await client.create(settings, { fieldManager: 'migration' }).catch(() => {});

    expect(calls().map((r) => r.query.fieldManager)).toEqual(['greeter', 'migration']);
  });

  it('leaves the field manager to the server when it has none', async () => {
    await directClient()
      .create(settings)
      .catch(() => {});

    expect(calls()).toEqual([{ method: 'POST', path: '/api/v1/namespaces/ns/configmaps', query: {} }]);
  });

  it('applies with its own field manager, forced by default', async () => {
    await directClient('greeter')
      .apply(settings)
      .catch(() => {});

    expect(calls()).toEqual([
      {
        method: 'PATCH',
        path: '/api/v1/namespaces/ns/configmaps/settings',
        query: { fieldManager: 'greeter', force: 'true' },
      },
    ]);
  });

  it('refuses to apply without any field manager, before sending anything', async () => {
    await expect(directClient().apply(settings)).rejects.toThrow('server-side apply needs a field manager');
    expect(calls()).toEqual([]);
  });
});
