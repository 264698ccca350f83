import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { selfSignedCertificate } from '@opkit/controller-runtime/certs';
import { afterEach, describe, expect, it } from 'vitest';
import { listWatch } from './list-watch.js';
import { KubeRest } from './rest.js';

// A loopback API server whose lists answer an empty collection and whose watches answer 200 and end at once,
// without an event, as a misbehaving server or proxy does.

let server: Server | undefined;
let rest: KubeRest | undefined;
const stop = new AbortController();

afterEach(async () => {
  stop.abort();
  rest?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

async function watchesEndingAtOnce(): Promise<{
  counts: { lists: number; watches: number };
  client: KubeRest;
}> {
  const counts = { lists: 0, watches: 0 };
  server = createServer(selfSignedCertificate({ commonName: 'api', hosts: ['127.0.0.1'] }), (req, res) => {
    const watch = new URL(req.url ?? '/', 'https://127.0.0.1').searchParams.get('watch') === 'true';
    res.writeHead(200, { 'content-type': 'application/json' });
    if (watch) {
      counts.watches++;
      res.end();
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

describe('listWatch', () => {
  it('GIVEN watches that end at once without an event WHEN 2 s pass THEN it reopens them twice, backing off, not in a loop', async () => {
    const { counts, client } = await watchesEndingAtOnce();
    const handler = { sync: () => {}, added: () => {}, modified: () => {}, deleted: () => {} };
    const running = listWatch(client, '/api/v1/configmaps', {}, handler, stop.signal);

    await new Promise((resolve) => setTimeout(resolve, 2_000));
    stop.abort();
    await running;

    // At 0, after 0.8-1.6 s, then not before 2.4 s; reopened at once it asked hundreds of times.
    expect(counts).toEqual({ lists: 1, watches: 2 });
  });
});
