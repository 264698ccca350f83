import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ConnectionError } from '../../errors/errors.js';
import { TestingApiServer } from '../../testing/api-server.js';
import { LeaderElectionLostError } from '../leaderelection/leader-elector.js';
import { Transport, warningTexts } from './transport.js';

/** A transport to a port nothing listens on: a request that goes out fails to connect. */
function transport(): Transport {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return new Transport(config);
}

describe('Transport.fenceWrites', () => {
  it('refuses every write after the fence, before anything is sent, and lets reads go out', async () => {
    const t = transport();
    const lost = new LeaderElectionLostError('lease ns/lock could not be renewed within 10000 ms');
    t.fenceWrites(lost);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      await expect(t.request({ method, path: '/api/v1/namespaces/ns/configmaps', body: {} })).rejects.toBe(
        lost,
      );
    }
    await expect(t.request({ method: 'GET', path: '/api/v1/namespaces' })).rejects.toBeInstanceOf(
      ConnectionError,
    );
    // The first reason stays.
    t.fenceWrites(new Error('later'));
    await expect(t.request({ method: 'POST', path: '/api/v1/namespaces', body: {} })).rejects.toBe(lost);
    await t.close();
  });
});

describe('Transport answers', () => {
  it('refuses an answer larger than its limit, naming the request, without buffering it', async () => {
    const server = await TestingApiServer.start();
    try {
      server.setObjects([], '1');
      server.reply('list', { status: 200, body: { kind: 'List', items: [], padding: 'x'.repeat(4096) } });
      const small = new Transport(server.kubeConfig(), undefined, { maxResponseBytes: 1024 });
      await expect(
        small.request({ method: 'GET', path: '/api/v1/namespaces/ns/configmaps' }),
      ).rejects.toThrow(/GET \/api\/v1\/namespaces\/ns\/configmaps: answer larger than 1024 bytes/);
      await small.close();
    } finally {
      await server.close();
    }
  });

  it("keeps the API server's message of a refusal apart from the request it names", async () => {
    const server = await TestingApiServer.start();
    try {
      server.setObjects([], '1');
      server.reply('list', {
        status: 403,
        body: { kind: 'Status', reason: 'Forbidden', message: 'configmaps is forbidden' },
      });
      const t = new Transport(server.kubeConfig());
      const refused = await t
        .request({ method: 'GET', path: '/api/v1/namespaces/ns/configmaps' })
        .catch((e) => e);
      expect(refused).toMatchObject({
        status: 403,
        reason: 'Forbidden',
        statusMessage: 'configmaps is forbidden',
        message: 'GET /api/v1/namespaces/ns/configmaps: 403 Forbidden: configmaps is forbidden',
      });
      await t.close();
    } finally {
      await server.close();
    }
  });
});

describe('Transport request time', () => {
  it('gives up on a request its server does not answer within the time its client was given', async () => {
    const server = await TestingApiServer.start();
    try {
      server.setObjects([], '1');
      server.reply('list', { status: 200, body: { kind: 'List', items: [] }, after: new Promise(() => {}) });
      const impatient = new Transport(server.kubeConfig(), undefined, { requestTimeoutMs: 200 });
      await expect(
        impatient.request({ method: 'GET', path: '/api/v1/namespaces/ns/configmaps' }),
      ).rejects.toThrow(/GET \/api\/v1\/namespaces\/ns\/configmaps: no answer within 200 ms/);
      await impatient.close();
    } finally {
      await server.close();
    }
  });
});

describe('Transport connections', () => {
  it('answers requests while more watches are open than it keeps connections for requests', async () => {
    const server = await TestingApiServer.start();
    const t = new Transport(server.kubeConfig());
    const stop = new AbortController();
    try {
      server.setObjects([], '1');
      // An operator watching a few kinds in each of 40 namespaces: 120 streams, each holding its connection.
      const watches = await Promise.all(
        Array.from({ length: 120 }, (_, i) =>
          t.open({
            method: 'GET',
            path: `/api/v1/namespaces/ns-${i}/configmaps`,
            query: { watch: true },
            signal: stop.signal,
          }),
        ),
      );
      expect(watches.every((w) => w.statusCode === 200)).toBe(true);
      const lists = await Promise.all(
        Array.from({ length: 10 }, () =>
          t.request<{ items: unknown[] }>({
            method: 'GET',
            path: '/api/v1/namespaces/ns-0/configmaps',
            timeoutMs: 5_000,
          }),
        ),
      );
      expect(lists.map((l) => l.items)).toEqual(Array.from({ length: 10 }, () => []));
    } finally {
      stop.abort();
      await t.close();
      await server.close();
    }
  });
});

describe('warningTexts', () => {
  it('reads the API server’s warning headers, several per line, with escapes', () => {
    expect(
      warningTexts([
        '299 - "cache.example.com/v1alpha1 Memcached is deprecated; use cache.example.com/v1beta1 Memcached"',
        '299 - "size 3 is the \\"most\\", here", 299 - "second" "Mon, 23 Nov 2026 10:00:00 GMT"',
      ]),
    ).toEqual([
      'cache.example.com/v1alpha1 Memcached is deprecated; use cache.example.com/v1beta1 Memcached',
      'size 3 is the "most", here',
      'second',
    ]);
    expect(warningTexts(undefined)).toEqual([]);
  });
});
