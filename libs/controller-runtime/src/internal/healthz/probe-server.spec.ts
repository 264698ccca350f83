import { connect } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prng } from '../../testing/prng.js';
import { ProbeServer } from './probe-server.js';

// The probe and metrics server survives any request: whatever arrives, it answers, and the process goes on.

/** Sends raw bytes and resolves with whatever comes back before the server closes the connection. */
function exchange(port: number, request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let response = '';
    socket.setTimeout(5_000, () =>
      socket.destroy(new Error(`no answer to ${JSON.stringify(String(request))}`)),
    );
    socket.on('data', (chunk: Buffer) => {
      response += chunk.toString('latin1');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may close on a malformed request while we are still writing it.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') resolve(response);
      else reject(error);
    });
    socket.on('end', () => resolve(response));
    socket.end(request);
  });
}

/** A well-formed GET. */
const get = (port: number, target: string): Promise<string> =>
  exchange(port, `GET ${target} HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n`);

const status = (response: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'BREW', 'get', ''];
const TARGET_PIECES = [
  '/',
  '//',
  '///x',
  '/healthz',
  '/readyz',
  '/metrics',
  '/healthz/',
  '/healthz/ping',
  '/healthz/nope',
  '/readyz/broken',
  '?verbose',
  '?exclude=ping',
  '&',
  '%',
  '%zz',
  '%00',
  '..',
  '/..',
  '#frag',
  '*',
  'http://example.com/healthz',
  'healthz',
  '\u00e9',
  '\u{1F600}',
  ':',
  '@',
  '[',
  ']',
  ' ',
  '\t',
  'a'.repeat(3000),
];
const HEADER_PIECES = [
  'Host: x',
  'Host:',
  'Content-Length: 5',
  'Content-Length: -1',
  'Content-Length: abc',
  'Transfer-Encoding: chunked',
  'Expect: 100-continue',
  'Connection: keep-alive',
  'X: \u0000',
  'no-colon',
  `X-Big: ${'b'.repeat(20_000)}`,
  'Accept: application/openmetrics-text',
];

/** One random request: usually well formed enough to reach the handler, sometimes not. */
function randomRequest(random: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  let target = '';
  const pieces = 1 + Math.floor(random() * 4);
  for (let i = 0; i < pieces; i++) target += pick(TARGET_PIECES);
  const headers = Array.from({ length: Math.floor(random() * 4) }, () => pick(HEADER_PIECES));
  const body = random() < 0.3 ? 'hello' : '';
  return `${pick(METHODS)} ${target} HTTP/1.1\r\n${[...headers, 'Connection: close'].join('\r\n')}\r\n\r\n${body}`;
}

describe('ProbeServer', () => {
  let server: ProbeServer;
  let metrics: ProbeServer;
  let port: number;
  let metricsPort: number;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    server = new ProbeServer({
      healthz: new Map([['ping', () => {}]]),
      readyz: new Map([
        ['ping', () => {}],
        // A check that fails with something that is not an Error.
        [
          'broken',
          () => {
            throw 'no reason';
          },
        ],
      ]),
    });
    port = (await server.listen({ host: '127.0.0.1', port: 0 })).port;
    const registry = new Registry();
    // A collector that fails: the metrics endpoint answers 500 instead of ending the process.
    registry.registerMetric({
      name: 'always_failing',
      help: 'fails to collect',
      get: () => Promise.reject(new Error('collector failed')),
      reset: () => {},
      // biome-ignore lint/suspicious/noExplicitAny: prom-client's Metric type asks for its internal shape
    } as any);
    metrics = new ProbeServer({ registry });
    metricsPort = (await metrics.listen({ host: '127.0.0.1', port: 0 })).port;
  });

  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await server.close();
    await metrics.close();
  });

  it('answers checks as controller-runtime does', async () => {
    const healthz = await get(port, '/healthz');
    expect(status(healthz)).toBe(200);
    expect(healthz.endsWith('ok')).toBe(true);
    const readyz = await get(port, '/readyz');
    expect(status(readyz)).toBe(500);
    expect(readyz).toContain('[-]broken failed: no reason');
    expect(status(await get(port, '/readyz/ping'))).toBe(200);
  });

  it('answers 400 to a request target that is no path, and 500 when collecting metrics fails', async () => {
    expect(status(await get(port, '//'))).toBe(400);
    expect(status(await get(port, 'http://x/healthz'))).toBe(400);
    const failed = await get(metricsPort, '/metrics');
    expect(status(failed)).toBe(500);
    expect(failed).toContain('collector failed');
  });

  it('survives random requests (seeded, 2,000 by default) and still answers its probes', async () => {
    const seed = Number(process.env.OPKIT_PROPERTY_SEED ?? 20261123);
    const random = prng(seed);
    const cases = Number(process.env.OPKIT_PROPERTY_CASES ?? 2_000);
    for (let i = 0; i < cases; i++) {
      const request = randomRequest(random);
      const target = random() < 0.5 ? port : metricsPort;
      const response = await exchange(target, request);
      // Every request that reaches the server gets an HTTP answer (Node's parser answers the malformed ones).
      if (response !== '')
        expect(
          status(response),
          `seed ${seed}, request ${i}: ${JSON.stringify(request.slice(0, 200))}`,
        ).toBeGreaterThan(0);
    }
    expect(unhandled, `seed ${seed}`).toEqual([]);
    expect(status(await get(port, '/healthz'))).toBe(200);
  });
});
