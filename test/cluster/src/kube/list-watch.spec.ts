import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { selfSignedCertificate } from '@opkit/controller-runtime/serving';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listWatch } from './list-watch.js';
import { KubeRest } from './rest.js';

// A loopback API server whose lists answer an empty collection and whose watches answer 200 and end at once,
// without an event or with an ERROR event saying the version just listed expired, as a misbehaving server or
// proxy does.

let server: Server | undefined;
let rest: KubeRest | undefined;
let stop = new AbortController();

afterEach(async () => {
  stop.abort();
  stop = new AbortController();
  rest?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

async function watchesEndingAtOnce(expire = false): Promise<{
  counts: { lists: number; watches: number };
  client: KubeRest;
}> {
  const counts = { lists: 0, watches: 0 };
  server = createServer(selfSignedCertificate({ commonName: 'api', hosts: ['127.0.0.1'] }), (req, res) => {
    const watch = new URL(req.url ?? '/', 'https://127.0.0.1').searchParams.get('watch') === 'true';
    res.writeHead(200, { 'content-type': 'application/json' });
    if (watch) {
      counts.watches++;
      const expired = { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } };
      res.end(expire ? `${JSON.stringify(expired)}\n` : undefined);
      return;
    }
    counts.lists++;
    res.end(JSON.stringify({ metadata: { resourceVersion: '7' }, items: [] }));
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [
      {
        name: 'c',
        server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
        skipTLSVerify: true,
      },
    ],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  rest = new KubeRest(kubeConfig);
  return { counts, client: rest };
}

/**
 * Runs listWatch until it has watched twice and 300 ms more. With the back-off: at 0, after 0.8-1.6 s, then
 * not before 2.4 s; reopened at once it asked hundreds of times.
 */
async function twoWatches(counts: { watches: number }, client: KubeRest): Promise<number> {
  const handler = { sync: () => {}, added: () => {}, modified: () => {}, deleted: () => {} };
  const started = performance.now();
  const running = listWatch(client, '/api/v1/configmaps', {}, handler, stop.signal);
  await vi.waitFor(() => expect(counts.watches).toBeGreaterThanOrEqual(2), { timeout: 5_000 });
  const elapsed = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 300));
  stop.abort();
  await running;
  return elapsed;
}

describe('listWatch', () => {
  it('GIVEN watches that end at once without an event THEN it reopens them backing off, not in a loop', async () => {
    const { counts, client } = await watchesEndingAtOnce();
    expect(await twoWatches(counts, client)).toBeGreaterThanOrEqual(800);
    expect(counts.lists).toBe(1);
    expect(counts.watches).toBeLessThanOrEqual(3);
  });

  it('GIVEN watches that expire at once from the version just listed THEN it relists backing off, not in a loop', async () => {
    const { counts, client } = await watchesEndingAtOnce(true);
    expect(await twoWatches(counts, client)).toBeGreaterThanOrEqual(800);
    expect(counts.lists).toBeLessThanOrEqual(3);
    expect(counts.watches).toBeLessThanOrEqual(3);
  });
});
