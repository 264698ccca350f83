import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { generatePki, writeKubeconfig } from '../control-plane/pki.js';
import { ApiProxy } from './api-proxy.js';

// The proxy in front of a small HTTPS server standing in for the API server, with a cluster's certificates
// as the tests' clusters have them: the stand-in serves the API server's certificate, the proxy presents the
// same one, and the client trusts the cluster's CA.

const NAMESPACE = '/api/v1/namespaces/ns';

/** A stand-in for the API server: answers writes (recording them) and keeps watch streams open for the test. */
class StandInApiServer {
  readonly writes: string[] = [];
  readonly #watches = new Map<string, ServerResponse>();
  readonly server: Server;

  constructor(serving: { cert: string; key: string }) {
    this.server = createServer(serving, (req, res) => this.#answer(req, res));
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** One event on the watch of `plural`, as a JSON line. */
  event(plural: string, name: string): void {
    const watch = this.#watches.get(plural);
    if (!watch) throw new Error(`no watch of ${plural} is open`);
    watch.write(`${JSON.stringify({ type: 'MODIFIED', object: { metadata: { name } } })}\n`);
  }

  endWatches(): void {
    for (const watch of this.#watches.values()) watch.end();
    this.#watches.clear();
  }

  #answer(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'https://stand-in');
    const method = req.method ?? 'GET';
    if (url.searchParams.get('watch') === 'true') {
      this.#watches.set(url.pathname.split('/').at(-1) ?? '', res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      return;
    }
    req.resume();
    req.on('end', () => {
      if (method !== 'GET') this.writes.push(`${method} ${url.pathname}`);
      // A write to an object named `cut` is applied, then the server goes away before it answers.
      if (url.pathname.endsWith('/cut')) {
        res.destroy();
        return;
      }
      // A write to an object named `slow` takes a while to answer, as one behind an admission webhook does.
      setTimeout(
        () => {
          res.writeHead(method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ kind: 'ConfigMap', metadata: { name: 'a' } }));
        },
        url.pathname.endsWith('/slow') ? 300 : 0,
      );
    });
  }
}

/** An event as the client received it. */
interface Received {
  readonly plural: string;
  readonly name: string;
  readonly at: number;
}

let dir: string;
let ca: string;
let apiServer: StandInApiServer;
let proxy: ApiProxy;
const openWatches: ClientRequest[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'api-proxy-'));
  const pki = await generatePki(join(dir, 'pki'), '10.96.0.1');
  ca = readFileSync(pki.caCert, 'utf8');
  const serving = { cert: readFileSync(pki.serverCert, 'utf8'), key: readFileSync(pki.serverKey, 'utf8') };
  apiServer = new StandInApiServer(serving);
  await new Promise<void>((resolve) => apiServer.server.listen(0, '127.0.0.1', resolve));
  const kubeconfig = join(dir, 'admin.kubeconfig');
  writeKubeconfig(kubeconfig, apiServer.url, pki, 'admin');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfig);
  proxy = await ApiProxy.start(kubeConfig, serving);
}, 60_000);

afterEach(() => {
  for (const watch of openWatches.splice(0)) watch.destroy();
  apiServer.endWatches();
  proxy.arm();
});

afterAll(async () => {
  await proxy?.close();
  apiServer?.server.closeAllConnections();
  apiServer?.server.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** One request through the proxy, on a connection of its own: the answer's status, or the cut connection's error. */
function send(method: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${proxy.url}${path}`, { method, ca, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(method === 'GET' || method === 'DELETE' ? undefined : '{}');
  });
}

/** Opens a watch of `plural` through the proxy; once it is open, every event received is logged. */
function watch(plural: string, log: Received[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(`${proxy.url}${NAMESPACE}/${plural}?watch=true`, { ca, agent: false }, (res) => {
      let partial = '';
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        const lines = (partial + text).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          const event = JSON.parse(line) as { object: { metadata: { name: string } } };
          log.push({ plural, name: event.object.metadata.name, at: Date.now() });
        }
      });
      res.on('error', () => {});
      resolve();
    });
    req.on('error', reject);
    openWatches.push(req);
    req.end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const names = (log: readonly Received[], plural?: string) =>
  log.filter((e) => !plural || e.plural === plural).map((e) => e.name);

describe('ApiProxy', () => {
  it('numbers the writes from 1 from the moment it is armed, leaving out reads', async () => {
    await send('POST', `${NAMESPACE}/configmaps`);
    proxy.arm();
    await send('GET', `${NAMESPACE}/configmaps/a`);
    expect(await send('PUT', `${NAMESPACE}/configmaps/a`)).toBe(200);
    expect(await send('DELETE', `${NAMESPACE}/configmaps/a`)).toBe(200);
    expect(proxy.writes.map((w) => [w.step, w.method, w.path, w.status])).toEqual([
      [1, 'PUT', `${NAMESPACE}/configmaps/a`, 200],
      [2, 'DELETE', `${NAMESPACE}/configmaps/a`, 200],
    ]);
  });

  it("runs the armed hook after each write, and its 'drop' cuts the connection instead of answering", async () => {
    const hooked: number[] = [];
    proxy.arm(async (write) => {
      hooked.push(write.step);
      return write.step === 2 ? 'drop' : 'deliver';
    });
    expect(await send('POST', `${NAMESPACE}/configmaps`)).toBe(201);
    await expect(send('PATCH', `${NAMESPACE}/configmaps/a`)).rejects.toThrow();
    expect(await send('DELETE', `${NAMESPACE}/configmaps/a`)).toBe(200);
    expect(hooked).toEqual([1, 2, 3]);
    // The API server did make the dropped write: only its answer was lost.
    expect(apiServer.writes.at(-2)).toBe(`PATCH ${NAMESPACE}/configmaps/a`);
    expect(proxy.writes.map((w) => `${w.step} ${w.method} ${w.status}`)).toEqual([
      '1 POST 201',
      '2 PATCH 200',
      '3 DELETE 200',
    ]);
  });

  it('records a write sent whole by a client that went away before the answer, and runs no hook for it', async () => {
    const hooked: number[] = [];
    proxy.arm(async (write) => {
      hooked.push(write.step);
      return 'deliver';
    });
    await new Promise<void>((resolve, reject) => {
      const req = request(`${proxy.url}${NAMESPACE}/configmaps/slow`, { method: 'PATCH', ca, agent: false });
      req.on('error', () => resolve());
      req.end('{}', () => setTimeout(() => req.destroy(), 100));
      req.on('response', () => reject(new Error('the answer should not have come before the client went')));
    });
    // The API server applies the write and answers after the client has gone: the proxy records it anyway.
    await vi.waitFor(() =>
      expect(proxy.writes.map((w) => `${w.step} ${w.method} ${w.status} ${w.unanswered}`)).toEqual([
        '1 PATCH 200 true',
      ]),
    );
    expect(apiServer.writes.at(-1)).toBe(`PATCH ${NAMESPACE}/configmaps/slow`);
    expect(await send('DELETE', `${NAMESPACE}/configmaps/a`)).toBe(200);
    expect(hooked).toEqual([2]);
    expect(proxy.writes.map((w) => `${w.step} ${w.method} ${w.unanswered}`)).toEqual([
      '1 PATCH true',
      '2 DELETE false',
    ]);
  });

  it('records a write whose API server went away before answering, with status 0, as it may have been applied', async () => {
    await expect(send('PUT', `${NAMESPACE}/configmaps/cut`)).rejects.toThrow();
    expect(apiServer.writes.at(-1)).toBe(`PUT ${NAMESPACE}/configmaps/cut`);
    expect(proxy.writes.map((w) => `${w.step} ${w.method} ${w.status} ${w.unanswered}`)).toEqual([
      '1 PUT 0 true',
    ]);
    // Why the answer was lost, for a failing cell's report.
    expect(proxy.writes[0]?.error).toBe('ECONNRESET');
  });

  it('holds every watch stream for a watch delay, then delivers what each got, in order', async () => {
    const log: Received[] = [];
    await watch('configmaps', log);
    await watch('secrets', log);
    apiServer.event('configmaps', 'before');
    await vi.waitFor(() => expect(names(log)).toEqual(['before']));

    const released = proxy.holdWatches(400);
    const holdStarted = Date.now();
    apiServer.event('configmaps', 'cm-1');
    apiServer.event('secrets', 's-1');
    apiServer.event('configmaps', 'cm-2');
    await sleep(200);
    expect(names(log)).toEqual(['before']);

    await released;
    await vi.waitFor(() => expect(log).toHaveLength(4));
    expect(names(log, 'configmaps')).toEqual(['before', 'cm-1', 'cm-2']);
    expect(names(log, 'secrets')).toEqual(['s-1']);
    for (const event of log.slice(1)) expect(event.at - holdStarted).toBeGreaterThanOrEqual(390);

    // Once released, events pass straight on again.
    apiServer.event('secrets', 's-2');
    await vi.waitFor(() => expect(names(log, 'secrets')).toEqual(['s-1', 's-2']));
  });

  it('releases the streams one by one for a reorder, the last to get an event first, each in its order', async () => {
    const log: Received[] = [];
    await watch('configmaps', log);
    await watch('secrets', log);
    await watch('services', log);
    await watch('pods', log);

    const released = proxy.holdWatches(500, { order: 'reversed', gapMs: 150 });
    // Apart in time, so that the proxy gets them in this order.
    apiServer.event('configmaps', 'cm-1');
    await sleep(50);
    apiServer.event('secrets', 's-1');
    await sleep(50);
    apiServer.event('configmaps', 'cm-2');
    await sleep(50);
    apiServer.event('services', 'svc-1');
    await sleep(100);
    expect(log).toEqual([]);

    await released;
    await vi.waitFor(() => expect(log).toHaveLength(4));
    // The services stream got its first event last, so it goes first; the configmaps' two stay in order.
    expect(names(log)).toEqual(['svc-1', 's-1', 'cm-1', 'cm-2']);
    const at = (name: string) => log.find((e) => e.name === name)?.at ?? Number.NaN;
    expect(at('s-1') - at('svc-1')).toBeGreaterThanOrEqual(140);
    expect(at('cm-1') - at('s-1')).toBeGreaterThanOrEqual(140);

    // The pods stream had nothing held and passes straight on, as all do once released.
    apiServer.event('pods', 'pod-1');
    apiServer.event('configmaps', 'cm-3');
    await vi.waitFor(() => expect(names(log).slice(4).sort()).toEqual(['cm-3', 'pod-1']));
  });

  it('holds a watch stream opened during the hold as well', async () => {
    const log: Received[] = [];
    const released = proxy.holdWatches(300, { order: 'reversed', gapMs: 100 });
    await watch('configmaps', log);
    apiServer.event('configmaps', 'cm-1');
    await sleep(150);
    expect(log).toEqual([]);
    await released;
    await vi.waitFor(() => expect(names(log)).toEqual(['cm-1']));
  });
});
