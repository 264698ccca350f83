import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Measure, Ports, Request } from '../../test/support/servers-under-attack.js';
import type { ServerLimits } from './bounded-server.js';

// Thousands of hostile connections against the runtime's real servers (webhook, probes, metrics), each in the
// ways a client can hold a connection without finishing a request: connecting and sending nothing, starting a
// TLS handshake and stopping, completing it and sending nothing, sending headers a line at a time, sending a
// body a byte at a time, keeping an answered connection alive. None of them keeps its client's side open, as
// an attacker would not. The servers run in a child process, whose open connections and memory are measured;
// the limits are short so that the test takes seconds.

// The handshake timeout is long enough for TLS handshakes on a loaded two-core machine running other test files,
// which can take seconds when thousands arrive at once; the others short, so that the test takes seconds.
const LIMITS: ServerLimits = {
  handshakeTimeoutMs: 5_000,
  headersTimeoutMs: 1_000,
  requestTimeoutMs: 1_500,
  idleTimeoutMs: 1_000,
  handlerTimeoutMs: 1_000,
  maxConnections: 64,
};
/** The longest any hostile connection may last: the request timeout after a handshake, and Node's check period. */
const LONGEST_MS = LIMITS.handshakeTimeoutMs + LIMITS.requestTimeoutMs + 250;
/** Room for a busy two-core machine. */
const SLACK_MS = 5_000;
const MiB = 1024 * 1024;
/**
 * What the three servers may hold at their peak: each at its cap, a connection costing about 75 KiB after its
 * TLS handshake (taken as 256 KiB), and room for the allocator and the heap's young generation. The unbounded
 * servers this replaces grew by 173 MiB under the same attack.
 */
const PEAK_RSS_GROWTH_BOUND_MiB = (3 * LIMITS.maxConnections * 256) / 1024 + 24;
/** Once every connection is closed, the heap after a full collection holds nothing of them. */
const HEAP_GROWTH_BOUND_MiB = 8;

type Server = keyof Ports;
type Kind =
  | 'silent' // connects, sends nothing
  | 'partial-hello' // the first bytes of a TLS ClientHello, then nothing
  | 'handshake-then-silent' // a complete TLS handshake, then nothing
  | 'slow-headers' // a request line, then one header line every 100 ms
  | 'slow-body' // complete headers announcing 10,000 bytes, then one byte every 100 ms
  | 'kept-alive'; // one request answered, then nothing

/**
 * How many of each kind go to each server: 5,000 in all, over a TCP or a TLS connection as the server takes. The
 * ones that make requests come first, fewer than a server's cap; the floods of cheap ones then fill the caps.
 */
const PLAN: readonly (readonly [Server, Kind, number])[] = [
  ['webhook', 'kept-alive', 15],
  ['webhook', 'handshake-then-silent', 15],
  ['webhook', 'slow-headers', 15],
  ['webhook', 'slow-body', 15],
  ['metrics', 'kept-alive', 15],
  ['metrics', 'handshake-then-silent', 15],
  ['metrics', 'slow-headers', 15],
  ['probe', 'kept-alive', 20],
  ['probe', 'slow-headers', 20],
  ['probe', 'slow-body', 20],
  ['webhook', 'partial-hello', 900],
  ['webhook', 'silent', 900],
  ['metrics', 'partial-hello', 900],
  ['metrics', 'silent', 900],
  ['probe', 'silent', 1235],
];

/**
 * The clients keep every connection open to the end, one file descriptor each: on a machine whose limit of open
 * files (`ulimit -n`) is lower than that, the floods shrink to fit, and the test says so.
 */
function fittingPlan(): typeof PLAN {
  const limit = /^Max open files\s+(\d+)/m.exec(safeRead('/proc/self/limits'))?.[1];
  const room = limit === undefined ? Number.POSITIVE_INFINITY : Number(limit) - 1_000;
  const total = PLAN.reduce((sum, [, , count]) => sum + count, 0);
  if (room >= total) return PLAN;
  console.warn(`hostile connections: ${room} instead of ${total}, for an open-file limit of ${limit}`);
  return PLAN.map(([server, kind, count]) => [server, kind, Math.floor((count * room) / total)] as const);
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** A TLS record (handshake, 512 bytes announced) holding the start of a ClientHello. */
const PARTIAL_CLIENT_HELLO = Buffer.from('160301020001000200000303', 'hex');

const requestLine = (server: Server): string =>
  server === 'webhook' ? 'POST /validate HTTP/1.1\r\n' : 'GET /healthz HTTP/1.1\r\n';

interface Connection {
  readonly socket: Socket;
  readonly kind: Kind;
  /** When the server ended or closed it, in ms after the attack started. */
  endedAt?: number;
  answered: boolean;
  trickle?: string;
}

let child: ChildProcess;
let ports: Ports;
let peakConnections = 0;
let peakRssBytes = 0;

function ask<T>(request: Request, key: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: Record<string, unknown>) => {
      if ('error' in message) reject(new Error(String(message.error)));
      else if (key in message) resolve(message[key] as T);
      else return;
      child.off('message', onMessage);
    };
    child.on('message', onMessage);
    child.send(request);
  });
}

/** The child's memory and connections now, keeping the peaks since the attack started. */
async function measure(): Promise<Measure> {
  const now = await ask<Measure>({ measure: true }, 'measure');
  peakConnections = Math.max(peakConnections, now.peakSockets);
  peakRssBytes = Math.max(peakRssBytes, now.peakRssBytes);
  return now;
}

/** Opens one hostile connection; resolves once it is connected (or refused) and has sent its opening bytes. */
function open(server: Server, kind: Kind, started: number): Promise<Connection> {
  const secure = server !== 'probe';
  // An attacker keeps its side open: a server that only ends its own side still holds the connection.
  const raw = new Socket({ allowHalfOpen: true });
  raw.connect(ports[server], '127.0.0.1');
  const tlsWanted = secure && kind !== 'silent' && kind !== 'partial-hello';
  const socket = tlsWanted ? tlsConnect({ socket: raw, rejectUnauthorized: false }) : raw;
  const connection: Connection = { socket, kind, answered: false };
  const ended = () => {
    connection.endedAt ??= performance.now() - started;
  };
  for (const s of new Set([raw, socket])) {
    s.on('end', ended);
    s.on('close', ended);
    s.on('error', () => {});
  }
  socket.on('data', (chunk: Buffer) => {
    if (chunk.toString('latin1').startsWith('HTTP/1.1 200')) connection.answered = true;
  });
  return new Promise((resolve) => {
    const ready = () => {
      const line = requestLine(server);
      if (kind === 'partial-hello') socket.write(PARTIAL_CLIENT_HELLO);
      else if (kind === 'slow-headers') {
        socket.write(`${line}host: attacked\r\n`);
        connection.trickle = 'x-slow: 1\r\n';
      } else if (kind === 'slow-body') {
        socket.write(
          `${line}host: attacked\r\ncontent-type: application/json\r\ncontent-length: 10000\r\n\r\n{`,
        );
        connection.trickle = ' ';
      } else if (kind === 'kept-alive') {
        const body = server === 'webhook' ? '{}' : '';
        socket.write(
          `${line}host: attacked\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
        );
      }
      resolve(connection);
    };
    socket.once(tlsWanted ? 'secureConnect' : 'connect', ready);
    socket.once('close', () => resolve(connection));
  });
}

beforeAll(async () => {
  child = fork(join(import.meta.dirname, '..', '..', 'test', 'support', 'servers-under-attack.ts'), {
    execArgv: ['--expose-gc', '--conditions=@opkit/source', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  ports = await ask<Ports>({ start: LIMITS }, 'ports');
}, 30_000);

afterAll(async () => {
  child.disconnect();
  await once(child, 'exit');
});

describe('the runtime servers under thousands of hostile connections', () => {
  it('close every one in time, about maxConnections at once, and give back the memory', async () => {
    // Warm up as traffic would: answered requests on every server, many on the cheap one, so that what is
    // measured is the attack, not start-up or the JavaScript heap's young generation growing for any burst.
    for (let round = 0; round < 12; round++) {
      const warm = await Promise.all(
        Array.from({ length: LIMITS.maxConnections }, (_, i) =>
          open(i < 10 ? 'webhook' : i < 20 ? 'metrics' : 'probe', 'kept-alive', 0),
        ),
      );
      for (let wait = 0; wait < 50 && !warm.every((c) => c.answered); wait++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      for (const c of warm) c.socket.destroy();
      expect(warm.every((c) => c.answered)).toBe(true);
      // The next round must not find the servers still holding this one's connections, up to their caps.
      while ((await ask<Measure>({ measure: true }, 'measure')).sockets > 0) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    const before = await ask<Measure>({ measure: true }, 'measure');
    peakConnections = 0;
    peakRssBytes = 0;

    const started = performance.now();
    const connections: Connection[] = [];
    const trickle = setInterval(() => {
      for (const c of connections) if (c.trickle && c.endedAt === undefined) c.socket.write(c.trickle);
    }, 100);
    try {
      const plan = fittingPlan();
      for (const [server, kind, count] of plan) {
        for (let done = 0; done < count; done += 250) {
          const batch = Math.min(250, count - done);
          connections.push(
            ...(await Promise.all(Array.from({ length: batch }, () => open(server, kind, started)))),
          );
        }
      }
      const allOpen = performance.now() - started;
      // The child's count of open connections must drop to none by the time the last one opened has had its
      // longest allowance.
      let held = Number.POSITIVE_INFINITY;
      while (performance.now() - started < allOpen + LONGEST_MS + SLACK_MS) {
        held = (await measure()).sockets;
        if (held === 0 && connections.every((c) => c.endedAt !== undefined)) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const after = await measure();
      const notEnded = connections.filter((c) => c.endedAt === undefined).map((c) => c.kind);
      const report = {
        connections: connections.length,
        openedInMs: Math.round(allOpen),
        heldAfter: held,
        peakConnections,
        rssGrowthMiB: (after.rssBytes - before.rssBytes) / MiB,
        heapGrowthMiB: (after.heapUsedBytes - before.heapUsedBytes) / MiB,
        heapTotalGrowthMiB: (after.heapTotalBytes - before.heapTotalBytes) / MiB,
        peakRssGrowthMiB: (peakRssBytes - before.rssBytes) / MiB,
      };
      console.log('hostile connections:', JSON.stringify(report));
      expect(connections).toHaveLength(plan.reduce((sum, [, , count]) => sum + count, 0));
      expect(notEnded).toEqual([]);
      expect(held).toBe(0);
      // The kept-alive ones were answered first: the limits cut only what never became a request.
      expect(connections.filter((c) => c.kind === 'kept-alive').every((c) => c.answered)).toBe(true);
      // Three servers, each with its cap; a connection closed to make room for a new one is counted until Node
      // releases its handle, on a later turn of the event loop, so a burst overshoots the caps for a moment.
      expect(report.peakConnections).toBeLessThanOrEqual(2 * 3 * LIMITS.maxConnections);
      // The heap (after a full collection) is exact; the resident size, which the allocator and the other test
      // files running at the same time move, only has to stay within what the caps allow.
      expect(report.heapGrowthMiB).toBeLessThan(HEAP_GROWTH_BOUND_MiB);
      expect(report.peakRssGrowthMiB).toBeLessThan(PEAK_RSS_GROWTH_BOUND_MiB);
    } finally {
      clearInterval(trickle);
      for (const c of connections) c.socket.destroy();
    }
    // Warming up, opening 5,000 connections (TLS ones among them) and waiting out the longest allowance, on a
    // loaded machine.
  }, 120_000);
});
