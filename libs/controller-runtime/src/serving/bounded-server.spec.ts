import { once } from 'node:events';
import type { Server } from 'node:http';
import { type AddressInfo, Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../certs/certificates.js';
import {
  type BoundedServerOptions,
  ClientGoneError,
  createBoundedServer,
  DEFAULT_SERVER_LIMITS,
  HandlerTimeoutError,
  type Reply,
  serverLimits,
} from './bounded-server.js';

// Every server built here answers each request once, within its deadline, whatever the handler does, and lets
// no client hold a connection beyond the limits. (Thousands of hostile clients against the real servers:
// hostile-connections.spec.ts.)

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
const servers: Server[] = [];

beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

async function serve(options: BoundedServerOptions): Promise<{ server: Server; port: number }> {
  const server = createBoundedServer(options);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

/** Sends raw bytes and resolves with what comes back once the server ends the connection. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new Socket().connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

const post = (port: number, path: string, body = '{}') =>
  exchange(
    port,
    `POST ${path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
  );

const connectionsOf = (server: Server) =>
  new Promise<number>((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );

const ok = (body: string): Reply => ({ status: 200, body, type: 'text/plain' });

describe('the server limits', () => {
  it('default to the documented values, which the servers take', () => {
    expect(DEFAULT_SERVER_LIMITS).toEqual({
      handshakeTimeoutMs: 10_000,
      headersTimeoutMs: 32_000,
      requestTimeoutMs: 60_000,
      idleTimeoutMs: 90_000,
      handlerTimeoutMs: 30_000,
      maxConnections: 128,
    });
    const plain = createBoundedServer({ handle: () => ok('') });
    const secure = createBoundedServer({
      tls: selfSignedCertificate({ commonName: 'x', hosts: ['127.0.0.1'] }),
      handle: () => ok(''),
    });
    for (const server of [plain, secure]) {
      expect({
        headersTimeout: server.headersTimeout,
        requestTimeout: server.requestTimeout,
        keepAliveTimeout: server.keepAliveTimeout,
        timeout: server.timeout,
        maxConnections: server.maxConnections,
      }).toEqual({
        headersTimeout: 32_000,
        requestTimeout: 60_000,
        keepAliveTimeout: 90_000,
        timeout: 90_000,
        maxConnections: 128,
      });
    }
  });

  it('take a limit left undefined as its default', () => {
    expect(serverLimits({ maxConnections: undefined, idleTimeoutMs: 5_000 })).toEqual({
      ...DEFAULT_SERVER_LIMITS,
      idleTimeoutMs: 5_000,
    });
  });

  it('refuse a value that is no positive whole number, naming the field', () => {
    expect(() => serverLimits({ handshakeTimeoutMs: 0 })).toThrow(
      'server limits: handshakeTimeoutMs must be a positive whole number, got 0',
    );
    expect(() => serverLimits({ maxConnections: Number.NaN })).toThrow(/maxConnections/);
    expect(() => serverLimits({ headersTimeoutMs: 5_000, requestTimeoutMs: 1_000 })).toThrow(
      /headersTimeoutMs \(5000\) must not exceed requestTimeoutMs \(1000\)/,
    );
  });
});

describe('a bounded server', () => {
  it('answers 500 for a handler that throws, rejects or answers no reply, and the process goes on', async () => {
    const { port } = await serve({
      handle: (req) => {
        if (req.url === '/throw') throw new Error('thrown');
        if (req.url === '/reject') return Promise.reject(new Error('rejected'));
        if (req.url === '/nothing') return undefined as unknown as Reply;
        return ok('fine');
      },
    });
    expect(await post(port, '/throw')).toMatch(/^HTTP\/1\.1 500 [\s\S]*internal error: thrown\n$/);
    expect(await post(port, '/reject')).toMatch(/^HTTP\/1\.1 500 [\s\S]*internal error: rejected\n$/);
    expect(await post(port, '/nothing')).toMatch(
      /^HTTP\/1\.1 500 [\s\S]*the handler answered undefined, no reply/,
    );
    expect(await post(port, '/fine')).toMatch(/^HTTP\/1\.1 200 [\s\S]*fine$/);
  });

  it('answers 503 at the handler deadline and aborts the handler’s signal', async () => {
    const reasons: unknown[] = [];
    const settled: number[] = [];
    const { port } = await serve({
      limits: { handlerTimeoutMs: 200 },
      handle: (_req, signal) => {
        signal.addEventListener('abort', () => reasons.push(signal.reason));
        return new Promise<Reply>(() => {}); // never settles
      },
      settled: (_req, reply) => settled.push(reply.status),
    });
    const started = performance.now();
    expect(await post(port, '/stuck')).toMatch(/^HTTP\/1\.1 503 [\s\S]*no answer within 0\.2 s\n$/);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(reasons).toEqual([expect.any(HandlerTimeoutError)]);
    expect(settled).toEqual([503]);
  });

  it('aborts the signal when the client goes away, and reports the request once', async () => {
    let sawAbort: (reason: unknown) => void = () => {};
    const aborted = new Promise<unknown>((resolve) => {
      sawAbort = resolve;
    });
    const settled: number[] = [];
    const { port } = await serve({
      handle: (_req, signal) =>
        new Promise<Reply>((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            sawAbort(signal.reason);
            reject(signal.reason);
          });
        }),
      settled: (_req, reply) => settled.push(reply.status),
    });
    const socket = new Socket().connect(port, '127.0.0.1');
    socket.write('POST /x HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}');
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    expect(await aborted).toBeInstanceOf(ClientGoneError);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toEqual([400]);
  });

  it('falls back to its own answer when the failure hook throws', async () => {
    const { port } = await serve({
      handle: () => {
        throw new Error('first');
      },
      failure: () => {
        throw new Error('second');
      },
    });
    expect(await post(port, '/x')).toMatch(/^HTTP\/1\.1 500 [\s\S]*internal error: second\n$/);
  });

  it('closes connections beyond maxConnections at once and the others at their timeout', async () => {
    const { server, port } = await serve({
      limits: { maxConnections: 5, headersTimeoutMs: 400, requestTimeoutMs: 400 },
      handle: () => ok(''),
    });
    const started = performance.now();
    const closedAfter = await Promise.all(
      Array.from(
        { length: 10 },
        () =>
          new Promise<number>((resolve) => {
            // An attacker keeps its side open; only the server's closing counts.
            const socket = new Socket({ allowHalfOpen: true }).connect(port, '127.0.0.1');
            socket.on('error', () => {});
            socket.resume(); // reads the 408, so that the end of the stream is seen
            socket.on('end', () => {
              resolve(performance.now() - started);
              socket.destroy();
            });
          }),
      ),
    );
    closedAfter.sort((a, b) => a - b);
    expect(closedAfter.slice(0, 5).every((ms) => ms < 300)).toBe(true);
    expect(closedAfter.slice(5).every((ms) => ms >= 350 && ms < 2_000)).toBe(true);
    expect(await connectionsOf(server)).toBe(0);
  });

  it('destroys a connection whose request it cannot parse, whether or not the client closes its side', async () => {
    const { server, port } = await serve({ handle: () => ok('') });
    const socket = new Socket({ allowHalfOpen: true }).connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
    });
    socket.write('NOT HTTP\r\n\r\n');
    await once(socket, 'end');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    for (let i = 0; i < 50 && (await connectionsOf(server)) > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await connectionsOf(server)).toBe(0);
    socket.destroy();
  });
});
