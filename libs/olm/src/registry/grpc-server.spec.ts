import { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCatalogContent } from '../catalog/declcfg/load.js';
import { convertToModel } from '../catalog/model/convert-to-model.js';
import { type RunningRegistryServer, startRegistryServer } from './grpc-server.js';
import { checkHealth } from './health-client.js';
import { RegistryQueries } from './queries.js';
import { buildRegistryModel } from './registry-model.js';

// The catalog's gRPC server under hostile connections: ones that send nothing, part of the HTTP/2 preface, or
// the preface and then never read nor answer. Each is closed within its limit even though the client keeps its
// side open, at most maxConnections are held at once, and a real client is still served. Short limits, so that
// the test takes seconds.

const LIMITS = { handshakeTimeoutMs: 300, idleTimeoutMs: 900, handlerTimeoutMs: 500, maxConnections: 100 };
/**
 * From the last connection opened: its idle timeout, then the time a closing connection may take to flush
 * (1 s), then room for a busy machine.
 */
const DEADLINE_MS = LIMITS.idleTimeoutMs + 1_000 + 3_000;

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
/** An empty SETTINGS frame: length 0, type 4, no flags, stream 0. */
const SETTINGS = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);

const queries = new RegistryQueries(
  buildRegistryModel(
    convertToModel(
      parseCatalogContent(`
{"schema":"olm.package","name":"p","defaultChannel":"stable"}
{"schema":"olm.channel","package":"p","name":"stable","entries":[{"name":"p.v1.0.0"}]}
{"schema":"olm.bundle","package":"p","name":"p.v1.0.0","image":"example.com/p:1.0.0","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}]}
`),
    ),
  ),
);

let server: RunningRegistryServer;

beforeAll(async () => {
  server = await startRegistryServer(queries, { host: '127.0.0.1', port: 0, limits: LIMITS });
});

afterAll(async () => {
  await server.close(500);
});

const tcpSockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;

describe('the registry server under hostile connections', () => {
  it('closes each in time, holds at most maxConnections, and still serves a real client', async () => {
    const clients: Socket[] = [];
    const alive = new Set<Socket>();
    const open = (first?: Buffer) =>
      new Promise<void>((resolve) => {
        // An attacker keeps its side open and never reads: only the server's destroying the connection ends it.
        const socket = new Socket({ allowHalfOpen: true }).connect(server.port, '127.0.0.1');
        clients.push(socket);
        alive.add(socket);
        socket.pause();
        socket.on('error', () => {});
        socket.on('close', () => alive.delete(socket));
        socket.once('connect', () => {
          if (first) socket.write(first);
          resolve();
        });
        socket.once('close', () => resolve());
      });
    const before = tcpSockets();
    try {
      for (let i = 0; i < 30; i++) await open(Buffer.concat([PREFACE, SETTINGS]));
      for (let i = 0; i < 30; i++) await open(PREFACE.subarray(0, 10));
      for (let i = 0; i < 30; i++) await open();
      await Promise.all(Array.from({ length: 400 }, () => open()));
      // Opening them takes its own time on a busy machine: each one's limit runs from its own start.
      const started = performance.now();
      // The server's own sockets: all TCP sockets of this process but the clients' still open.
      const held = () => tcpSockets() - before - alive.size;
      let peak = held();
      while (held() > 0 && performance.now() - started < DEADLINE_MS) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        peak = Math.max(peak, held());
      }
      expect(peak).toBeLessThanOrEqual(LIMITS.maxConnections);
      expect({ held: held(), withinMs: DEADLINE_MS }).toEqual({ held: 0, withinMs: DEADLINE_MS });
      expect(await checkHealth(`127.0.0.1:${server.port}`)).toBe(1);
    } finally {
      for (const socket of clients) socket.destroy();
    }
  }, 15_000);
});
