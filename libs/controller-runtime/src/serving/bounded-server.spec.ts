import { once } from 'node:events';
import type { Server } from 'node:http';
import { type AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect as tlsConnect } from 'node:tls';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type BoundedServerOptions,
  ClientGoneError,
  createBoundedServer,
  createBoundedSocketServer,
  DEFAULT_SERVER_LIMITS,
  HandlerTimeoutError,
  MAX_PIPELINED_REQUESTS,
  type Reply,
  serverLimits,
} from './bounded-server.js';
import { selfSignedCertificate } from './certificates.js';

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
      }).toEqual({
        headersTimeout: 32_000,
        requestTimeout: 60_000,
        keepAliveTimeout: 90_000,
        timeout: 90_000,
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

  it('makes room for a new connection by closing the oldest without a request, the others at their timeout', async () => {
    const { server, port } = await serve({
      limits: { maxConnections: 5, headersTimeoutMs: 1_500, requestTimeoutMs: 1_500 },
      handle: () => ok(''),
    });
    const started = performance.now();
    const closedAfter: number[] = [];
    const closed: Promise<void>[] = [];
    for (let i = 0; i < 10; i++) {
      // An attacker keeps its side open; only the server's closing counts.
      const socket = new Socket({ allowHalfOpen: true }).connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.resume(); // reads the 408, so that the end of the stream is seen
      closed.push(
        once(socket, 'end').then(() => {
          closedAfter[i] = performance.now() - started;
          socket.destroy();
        }),
      );
      await once(socket, 'connect');
    }
    await Promise.all(closed);
    // The five oldest made room for the five newest, which lasted their header timeout.
    const lastOfOldest = Math.max(...closedAfter.slice(0, 5));
    const firstOfNewest = Math.min(...closedAfter.slice(5));
    expect(lastOfOldest).toBeLessThan(firstOfNewest);
    expect(firstOfNewest).toBeGreaterThanOrEqual(1_400);
    expect(await connectionsOf(server)).toBe(0);
  });

  it('answers a real request promptly when silent connections and half-handshakes fill it', async () => {
    const limits = { maxConnections: 8, handshakeTimeoutMs: 20_000, headersTimeoutMs: 20_000 };
    const plain = await serve({ limits, handle: () => ok('fine') });
    const secure = await serve({
      tls: selfSignedCertificate({ commonName: 'x', hosts: ['127.0.0.1'] }),
      limits: { ...limits, requestTimeoutMs: 20_000 },
      handle: () => ok('fine'),
    });
    const hostile: Socket[] = [];
    const hold = async (port: number, firstBytes?: Buffer) => {
      const socket = new Socket({ allowHalfOpen: true }).connect(port, '127.0.0.1');
      socket.on('error', () => {});
      hostile.push(socket);
      await once(socket, 'connect');
      if (firstBytes) socket.write(firstBytes);
    };
    try {
      for (let i = 0; i < 2 * limits.maxConnections; i++) {
        await hold(plain.port);
        // The first bytes of a ClientHello, then nothing.
        await hold(secure.port, Buffer.from('160301020001000200000303', 'hex'));
      }
      const started = performance.now();
      expect(await post(plain.port, '/x')).toMatch(/^HTTP\/1\.1 200 [\s\S]*fine$/);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = tlsConnect({ port: secure.port, host: '127.0.0.1', rejectUnauthorized: false }, () =>
          socket.write('GET /x HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'),
        );
        let text = '';
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('latin1');
        });
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 200 [\s\S]*fine$/);
      // Far within the handshake and header timeouts, which are what the old cap made a client wait for.
      expect(performance.now() - started).toBeLessThan(10_000);
    } finally {
      for (const socket of hostile) socket.destroy();
    }
  });

  it('refuses a new connection only when every open one has a request being answered', async () => {
    const release: (() => void)[] = [];
    const { port } = await serve({
      tls: selfSignedCertificate({ commonName: 'x', hosts: ['127.0.0.1'] }),
      limits: { maxConnections: 3 },
      handle: () => new Promise<Reply>((resolve) => release.push(() => resolve(ok('late')))),
    });
    const answers = Array.from(
      { length: 3 },
      () =>
        new Promise<string>((resolve, reject) => {
          const socket = tlsConnect({ port, host: '127.0.0.1', rejectUnauthorized: false }, () =>
            socket.write('GET /x HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'),
          );
          let text = '';
          socket.on('data', (chunk: Buffer) => {
            text += chunk.toString('latin1');
          });
          socket.on('end', () => resolve(text));
          socket.on('error', reject);
        }),
    );
    while (release.length < 3) await sleep(10);
    const refused = new Socket().connect(port, '127.0.0.1');
    refused.on('error', () => {});
    await once(refused, 'close');
    for (const answer of release) answer();
    for (const answer of await Promise.all(answers)) expect(answer).toMatch(/^HTTP\/1\.1 200 [\s\S]*late$/);
  });

  it('runs the requests pipelined on one connection one at a time, and closes one that pipelines too many', async () => {
    let running = 0;
    let most = 0;
    let started = 0;
    const { port } = await serve({
      handle: async (req) => {
        started++;
        running++;
        most = Math.max(most, running);
        await sleep(5);
        running--;
        return ok(req.url ?? '');
      },
    });
    const pipelined = (count: number) =>
      exchange(
        port,
        Array.from({ length: count }, (_, i) => `GET /${i} HTTP/1.1\r\nhost: x\r\n\r\n`).join('') +
          `GET /last HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`,
      );
    const bodies = (await pipelined(4)).split(/HTTP\/1\.1 200 OK\r\n[\s\S]*?\r\n\r\n/).slice(1);
    expect(bodies).toEqual(['/0', '/1', '/2', '/3', '/last']);
    expect(most).toBe(1);

    started = 0;
    await pipelined(1_000);
    expect(most).toBe(1);
    expect(started).toBeLessThanOrEqual(MAX_PIPELINED_REQUESTS + 1);
  });

  it('gives the handler’s failure the signal’s reason when it honours its signal by rejecting', async () => {
    const failures: unknown[] = [];
    const { port } = await serve({
      handle: async (_req, signal) => {
        await sleep(60_000, undefined, { signal }); // rejects with an AbortError
        return ok('');
      },
      failure: (error) => {
        failures.push(error);
        return ok('');
      },
    });
    const socket = new Socket().connect(port, '127.0.0.1');
    socket.write('GET /x HTTP/1.1\r\nhost: x\r\n\r\n');
    await sleep(100);
    socket.destroy();
    while (failures.length === 0) await sleep(10);
    expect(failures).toEqual([expect.any(ClientGoneError)]);
  });

  it('runs its deadline timer only while a request is being answered', async () => {
    const armed = vi.spyOn(globalThis, 'setInterval');
    const cleared = vi.spyOn(globalThis, 'clearInterval');
    try {
      const { port } = await serve({ handle: () => ok('') });
      await post(port, '/one');
      await post(port, '/two');
      const timers = armed.mock.results.map((result) => result.value as unknown);
      expect(timers).toHaveLength(2);
      expect(cleared.mock.calls.map(([timer]) => timer)).toEqual(expect.arrayContaining(timers));
    } finally {
      armed.mockRestore();
      cleared.mockRestore();
    }
  });

  it('lets a protocol connection take the place of the oldest one that has not sent its preface', async () => {
    const server = createBoundedSocketServer({ limits: { maxConnections: 2 }, handshakeBytes: 4 }, (socket) =>
      socket.pipe(socket),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    const held: Socket[] = [];
    /** Connects, sends `preface` and waits for its echo; resolves with when the server closes the connection. */
    const connect = async (preface?: string) => {
      const socket = new Socket().connect(port, '127.0.0.1');
      socket.on('error', () => {});
      held.push(socket);
      const closed = once(socket, 'close');
      await once(socket, 'connect');
      if (preface !== undefined) {
        socket.write(preface);
        await once(socket, 'data');
      }
      return { closed };
    };
    try {
      const silent = [await connect(), await connect()];
      await connect('PRI *');
      await silent[0]?.closed;
      await connect('PRI *');
      await silent[1]?.closed;
      // Both held connections sent their preface: a third is refused.
      await (await connect()).closed;
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
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
