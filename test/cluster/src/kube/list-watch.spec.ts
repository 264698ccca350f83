import type { ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { selfSignedCertificate } from '@opkit/controller-runtime/serving';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listWatch } from './list-watch.js';
import { KubeRest } from './rest.js';

// A loopback API server whose lists answer an empty collection and whose watches answer 200 and end at once,
// without an event or with an ERROR event saying the version just listed expired, as a misbehaving server or
// proxy does; or one that keeps a request waiting, as a server does while its watch cache initialises.

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

type Answer = (res: ServerResponse) => void;

/** A loopback API server: `list` and `watch` answer each request of theirs, counted. */
async function apiServer(answers: { list: Answer; watch: Answer }): Promise<{
  counts: { lists: number; watches: number };
  client: KubeRest;
}> {
  const counts = { lists: 0, watches: 0 };
  server = createServer(selfSignedCertificate({ commonName: 'api', hosts: ['127.0.0.1'] }), (req, res) => {
    const watch = new URL(req.url ?? '/', 'https://127.0.0.1').searchParams.get('watch') === 'true';
    if (watch) counts.watches++;
    else counts.lists++;
    (watch ? answers.watch : answers.list)(res);
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

const emptyList: Answer = (res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ metadata: { resourceVersion: '7' }, items: [] }));
};
/** A watch the server keeps open without a word, as an idle collection's is between bookmarks. */
const openWatch: Answer = (res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.flushHeaders();
};

function watchesEndingAtOnce(expire = false) {
  return apiServer({
    list: emptyList,
    watch: (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const expired = { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } };
      res.end(expire ? `${JSON.stringify(expired)}\n` : undefined);
    },
  });
}

const handler = { sync: () => {}, added: () => {}, modified: () => {}, deleted: () => {} };

/** Whether `running` settles within `ms` of now. */
async function settlesWithin(running: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = running.then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs listWatch until it has watched twice and 300 ms more. With the back-off: at 0, after 0.8-1.6 s, then
 * not before 2.4 s; reopened at once it asked hundreds of times.
 */
async function twoWatches(counts: { watches: number }, client: KubeRest): Promise<number> {
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

  it('GIVEN an open watch WHEN stopped THEN it returns at once', async () => {
    const { counts, client } = await apiServer({ list: emptyList, watch: openWatch });
    const running = listWatch(client, '/api/v1/configmaps', {}, handler, stop.signal);
    await vi.waitFor(() => expect(counts.watches).toBe(1), { timeout: 5_000 });
    // Past the headers: the watch streams.
    await new Promise((resolve) => setTimeout(resolve, 100));
    stop.abort();
    expect(await settlesWithin(running, 2_000)).toBe(true);
  });

  it('GIVEN a watch whose answer the server holds back WHEN stopped THEN it returns at once', async () => {
    const { counts, client } = await apiServer({ list: emptyList, watch: () => {} });
    const running = listWatch(client, '/api/v1/configmaps', {}, handler, stop.signal);
    await vi.waitFor(() => expect(counts.watches).toBe(1), { timeout: 5_000 });
    stop.abort();
    expect(await settlesWithin(running, 2_000)).toBe(true);
  });

  it('GIVEN a list in flight WHEN stopped THEN it opens no watch and returns at once', async () => {
    const held: ServerResponse[] = [];
    const { counts, client } = await apiServer({ list: (res) => held.push(res), watch: openWatch });
    const running = listWatch(client, '/api/v1/configmaps', {}, handler, stop.signal);
    await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 5_000 });
    stop.abort();
    // The list's answer comes after the stop.
    for (const res of held) emptyList(res);
    expect(await settlesWithin(running, 2_000)).toBe(true);
    expect(counts.watches).toBe(0);
  });
});
