import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type Server as NetServer, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { SecureContextOptions } from 'node:tls';

// Not `import { createServer } from 'node:http'`: importing node:http as an ES module evaluates all its exports,
// and those of its WebSocket classes load Node's undici, which costs every operator about 14 MiB at start-up.
const { createServer: createHttpServer } = process.getBuiltinModule('node:http');

/**
 * How long a connection may take over each step, how long a handler may take, and how many connections may be
 * open at once. Every server the runtime and the CLI start is built on these, so no client, however slow or
 * silent, holds a connection or a handler for longer.
 */
export interface ServerLimits {
  /** A TLS handshake (gRPC: the HTTP/2 client preface) must be complete this long after the connection opens. */
  readonly handshakeTimeoutMs: number;
  /** A request's headers must have arrived this long after the connection is ready for it. */
  readonly headersTimeoutMs: number;
  /** A request, body included, must have arrived this long after it started. */
  readonly requestTimeoutMs: number;
  /** A kept-alive connection waiting for its next request, or any connection without traffic, is closed then. */
  readonly idleTimeoutMs: number;
  /** A handler's deadline: its `AbortSignal` aborts and the request is answered 503. */
  readonly handlerTimeoutMs: number;
  /**
   * Connections open at once. A connection beyond them takes the place of the oldest one that has no request
   * being answered (still in its handshake, sending its headers, or idle between requests); it is closed as
   * soon as it is accepted only when every open connection has a request being answered.
   */
  readonly maxConnections: number;
}

/**
 * The handshake timeout is the one Go's HTTP clients give a server; headers and idle time are
 * controller-runtime's server defaults (32 s, 90 s); handlers get as long as the API server ever waits for a
 * webhook (30 s). 128 connections per server are far more than the API server, the kubelet and scrapers open
 * at once; a server full of hostile connections holds about 45 KiB per connection before the TLS handshake and
 * 75 KiB after it, so 6 to 10 MiB.
 */
export const DEFAULT_SERVER_LIMITS: ServerLimits = Object.freeze({
  handshakeTimeoutMs: 10_000,
  headersTimeoutMs: 32_000,
  requestTimeoutMs: 60_000,
  idleTimeoutMs: 90_000,
  handlerTimeoutMs: 30_000,
  maxConnections: 128,
});

/** The limits with `overrides` applied; throws naming the field when one is not a positive whole number. */
export function serverLimits(overrides: Partial<ServerLimits> = {}): ServerLimits {
  const given = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  const limits: ServerLimits = { ...DEFAULT_SERVER_LIMITS, ...given };
  for (const [field, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new Error(`server limits: ${field} must be a positive whole number, got ${String(value)}`);
    }
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new Error(
      `server limits: headersTimeoutMs (${limits.headersTimeoutMs}) must not exceed requestTimeoutMs (${limits.requestTimeoutMs})`,
    );
  }
  return limits;
}

/** An answer: status, body and its content type, and any other headers. */
export interface Reply {
  readonly status: number;
  readonly body: string;
  readonly type: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Answers a request; `signal` aborts at the deadline and when the client goes away. */
export type RequestHandler = (req: IncomingMessage, signal: AbortSignal) => Promise<Reply> | Reply;

/** The reason a handler's signal aborts at its deadline. */
export class HandlerTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs / 1000} s`);
    this.name = 'HandlerTimeoutError';
  }
}

/** The reason a handler's signal aborts when the client closes the connection before it is answered. */
export class ClientGoneError extends Error {
  constructor(message = 'the client closed the connection before it was answered') {
    super(message);
    this.name = 'ClientGoneError';
  }
}

const TEXT = 'text/plain; charset=utf-8';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A deadline is a 503, a client gone a 400 (nobody reads it), anything else a 500 with the error's message. */
export function defaultFailureReply(error: unknown): Reply {
  if (error instanceof HandlerTimeoutError) return { status: 503, body: `${error.message}\n`, type: TEXT };
  if (error instanceof ClientGoneError) return { status: 400, body: `${error.message}\n`, type: TEXT };
  return { status: 500, body: `internal error: ${messageOf(error)}\n`, type: TEXT };
}

export interface BoundedServerOptions {
  /** Serve HTTPS (TLS 1.2 or later) with this certificate and key; plain HTTP without. */
  readonly tls?: SecureContextOptions;
  /** @default DEFAULT_SERVER_LIMITS */
  readonly limits?: Partial<ServerLimits>;
  readonly handle: RequestHandler;
  /**
   * Turns what the handler threw, its deadline ({@link HandlerTimeoutError}), the client going away
   * ({@link ClientGoneError}) or a missing reply into the answer. @default defaultFailureReply
   */
  readonly failure?: (error: unknown, req: IncomingMessage) => Reply;
  /** Sees each request's answer once, when it is decided, with the seconds since the request came (metrics). */
  readonly settled?: (req: IncomingMessage, reply: Reply, seconds: number) => void;
}

function isReply(value: unknown): value is Reply {
  const reply = value as Partial<Reply> | null | undefined;
  return (
    typeof reply === 'object' &&
    reply !== null &&
    Number.isInteger(reply.status) &&
    typeof reply.body === 'string' &&
    typeof reply.type === 'string'
  );
}

function send(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(reply.status, {
    ...reply.headers,
    'content-type': reply.type,
    'content-length': Buffer.byteLength(reply.body),
    // A request whose body was not read to its end cannot be followed by another on this connection.
    ...(req.complete ? {} : { connection: 'close' }),
  });
  res.end(reply.body);
}

/** Requests a client may pipeline behind the one being answered before its connection is closed. */
export const MAX_PIPELINED_REQUESTS = 16;

/**
 * One accepted connection. Its requests are answered one at a time, as Go's server does: a handler starts when
 * the previous request on the connection has been answered, so pipelining cannot run handlers side by side.
 */
class Connection {
  /** A request on it is being answered. */
  answering = false;
  closed = false;
  readonly waiting: (() => void)[] = [];

  constructor(readonly socket: Socket) {}

  /** Runs `start` now, or once the requests before it are answered; closes a connection that pipelines too many. */
  enqueue(start: () => void): void {
    if (this.closed) return;
    if (!this.answering) {
      this.answering = true;
      start();
    } else if (this.waiting.length < MAX_PIPELINED_REQUESTS) this.waiting.push(start);
    else this.close();
  }

  /** The request being answered is answered: the next one starts. */
  answered(): void {
    const next = this.waiting.shift();
    if (next && !this.closed) next();
    else this.answering = false;
  }

  close(): void {
    this.closed = true;
    this.waiting.length = 0;
    this.socket.destroy();
  }
}

/**
 * The open connections, oldest first, at most `max`: a new one takes the place of the oldest without a request
 * being answered, so that clients that never send a request cannot lock out those that do.
 */
class Connections {
  readonly #open = new Map<Socket, Connection>();

  constructor(readonly max: number) {}

  readonly admit = (socket: Socket): void => {
    if (this.#open.size >= this.max) {
      let idle: Connection | undefined;
      for (const connection of this.#open.values()) {
        if (!connection.answering) {
          idle = connection;
          break;
        }
      }
      if (idle === undefined) {
        socket.destroy();
        return;
      }
      this.#open.delete(idle.socket);
      idle.close();
    }
    const connection = new Connection(socket);
    this.#open.set(socket, connection);
    socket.once('close', () => {
      if (this.#open.get(socket) === connection) this.#open.delete(socket);
      connection.closed = true;
      connection.waiting.length = 0;
    });
  };

  /** The connection a request came on: for HTTPS, the TCP socket under its TLS socket. */
  of(socket: Duplex): Connection | undefined {
    // `_parent` is how Node's TLS socket holds the TCP socket it wraps; there is no public accessor.
    const parent = (socket as Duplex & { _parent?: unknown })._parent;
    return this.#open.get(parent instanceof Socket ? parent : (socket as Socket));
  }
}

/** One request being answered: it settles once, with the handler's reply or a failure's. */
class Exchange {
  readonly controller = new AbortController();
  readonly started = performance.now();
  done = false;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly answering: Answering,
  ) {}

  reply(reply: unknown): void {
    if (isReply(reply)) this.finish(reply);
    else this.fail(new Error(`the handler answered ${String(reply)}, no reply`));
  }

  fail(thrown: unknown): void {
    if (this.done) return;
    // A handler that honours its signal rejects with whatever its API throws (an AbortError from
    // timers/promises or events.once); the reason the signal was aborted is what happened.
    const error = this.controller.signal.aborted ? (this.controller.signal.reason as unknown) : thrown;
    let reply: Reply;
    try {
      reply = this.answering.failure(error, this.req);
      if (!isReply(reply)) reply = defaultFailureReply(error);
    } catch (failureError) {
      reply = defaultFailureReply(failureError);
    }
    this.finish(reply);
  }

  finish(reply: Reply): void {
    if (this.done) return;
    this.done = true;
    this.answering.settle(this);
    try {
      this.answering.settled?.(this.req, reply, (performance.now() - this.started) / 1000);
      send(this.req, this.res, reply);
    } catch {
      this.res.destroy(); // a reply that cannot be written (a bad header value): the client sees the connection end
    }
  }

  clientGone(): void {
    if (!this.done) this.controller.abort(new ClientGoneError());
  }
}

/**
 * Answers each request once, within the deadline, whatever its handler does: a throw or a rejection, a reply
 * that is no reply, or never settling. None of it can end the process. Deadlines are checked by one timer per
 * server, a tenth of the deadline apart, rather than one timer per request: the hot path stays as it was.
 */
class Answering {
  readonly pending = new Set<Exchange>();
  readonly failure: (error: unknown, req: IncomingMessage) => Reply;
  readonly settled: BoundedServerOptions['settled'];
  readonly #handle: RequestHandler;
  readonly #timeoutMs: number;
  readonly #connections: Connections;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(options: BoundedServerOptions, timeoutMs: number, connections: Connections) {
    this.#handle = options.handle;
    this.failure = options.failure ?? defaultFailureReply;
    this.settled = options.settled;
    this.#timeoutMs = timeoutMs;
    this.#connections = connections;
  }

  readonly listener = (req: IncomingMessage, res: ServerResponse): void => {
    const connection = this.#connections.of(req.socket);
    if (connection === undefined) {
      this.#start(req, res);
      return;
    }
    res.once('close', () => connection.answered());
    connection.enqueue(() => this.#start(req, res));
  };

  #start(req: IncomingMessage, res: ServerResponse): void {
    const exchange = new Exchange(req, res, this);
    this.pending.add(exchange);
    if (this.#sweeper === undefined) {
      this.#sweeper = setInterval(() => this.#sweep(), Math.max(10, Math.min(1_000, this.#timeoutMs / 10)));
      this.#sweeper.unref();
    }
    res.once('close', () => exchange.clientGone());
    try {
      const answer = this.#handle(req, exchange.controller.signal);
      if (answer instanceof Promise) {
        answer.then(
          (reply) => exchange.reply(reply),
          (error: unknown) => exchange.fail(error),
        );
      } else exchange.reply(answer);
    } catch (error) {
      exchange.fail(error);
    }
  }

  /** An exchange is answered; with none left, the deadline timer stops until the next request. */
  settle(exchange: Exchange): void {
    this.pending.delete(exchange);
    if (this.pending.size === 0) this.stop();
  }

  #sweep(): void {
    const due = performance.now() - this.#timeoutMs;
    for (const exchange of this.pending) {
      if (exchange.started > due) continue;
      const reason = new HandlerTimeoutError(this.#timeoutMs);
      exchange.fail(reason);
      exchange.controller.abort(reason);
    }
  }

  stop(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }
}

/**
 * Ends a connection the HTTP parser gave up on: a short answer when nothing else is being written on it, then
 * the socket is destroyed. `end()` alone would leave it open for as long as the client keeps its side open.
 */
function closeAfterClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const status =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? '408 Request Timeout'
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? '431 Request Header Fields Too Large'
        : '400 Bad Request';
  destroyAfter(socket, `HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
}

/** How long a closing connection may take to flush its last bytes before it is destroyed anyway. */
const CLOSE_LINGER_MS = 1_000;

function destroyAfter(socket: Duplex, lastBytes: string): void {
  socket.end(lastBytes, () => socket.destroy());
  setTimeout(() => socket.destroy(), CLOSE_LINGER_MS).unref();
}

/**
 * An HTTP server (HTTPS with `tls`) bounded by `limits`: handshake, headers, request, idle and handler
 * timeouts, a cap on connections, connections the parser refuses destroyed. The handler gets an `AbortSignal`
 * and its answer is sent for it (see {@link BoundedServerOptions}).
 */
export function createBoundedServer(
  options: BoundedServerOptions & { tls: SecureContextOptions },
): HttpsServer;
export function createBoundedServer(options: BoundedServerOptions): HttpServer | HttpsServer;
export function createBoundedServer(options: BoundedServerOptions): HttpServer | HttpsServer {
  const limits = serverLimits(options.limits);
  const connections = new Connections(limits.maxConnections);
  const answering = new Answering(options, limits.handlerTimeoutMs, connections);
  const listener = answering.listener;
  const http = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.idleTimeoutMs,
    // Node checks the header and request timeouts on this period (30 s by default, which would let a slow client
    // hold on to its connection for up to twice the limit).
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
  };
  const server: HttpServer | HttpsServer = options.tls
    ? createHttpsServer(
        { ...options.tls, minVersion: 'TLSv1.2', handshakeTimeout: limits.handshakeTimeoutMs, ...http },
        listener,
      )
    : createHttpServer(http, listener);
  server.keepAliveTimeout = limits.idleTimeoutMs;
  // A connection without traffic, such as one whose client stopped reading the answer; never shorter than a
  // handler may take, during which the connection is quiet.
  server.timeout = Math.max(limits.idleTimeoutMs, limits.handlerTimeoutMs + CLOSE_LINGER_MS);
  server.on('connection', connections.admit);
  server.on('close', () => answering.stop());
  server.on('clientError', closeAfterClientError);
  // Node destroys a socket whose handshake failed or timed out; the listener only keeps that from being logged.
  if (options.tls) server.on('tlsClientError', (_error: Error, socket: Duplex) => socket.destroy());
  return server;
}

/**
 * A TCP server for a protocol another library speaks on the accepted sockets (gRPC's HTTP/2), bounded as the
 * HTTP servers are at the connection level: at most `maxConnections` open, a new one taking the place of the
 * oldest that has not sent its preface (refused when all have); a connection that has not sent
 * `handshakeBytes` (the protocol's preface) within `handshakeTimeoutMs` is closed; and a connection the protocol
 * has ended on its side is destroyed shortly after, instead of waiting for the client to close its side.
 * Requests, idle sessions and handlers are the protocol library's to bound.
 */
export function createBoundedSocketServer(
  options: { readonly limits?: Partial<ServerLimits>; readonly handshakeBytes: number },
  onConnection: (socket: Socket) => void,
): NetServer {
  const limits = serverLimits(options.limits);
  const open = new Set<Socket>(); // oldest first
  const server = createNetServer({ noDelay: true }, (socket) => {
    if (open.size >= limits.maxConnections) {
      // The oldest connection still short of its preface makes room; with none, the new one is refused.
      let silent: Socket | undefined;
      for (const held of open) {
        if (held.bytesRead < options.handshakeBytes) {
          silent = held;
          break;
        }
      }
      if (silent === undefined) {
        socket.destroy();
        return;
      }
      open.delete(silent);
      silent.destroy();
    }
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    const handshake = setTimeout(() => {
      if (socket.bytesRead < options.handshakeBytes) socket.destroy();
    }, limits.handshakeTimeoutMs);
    socket.once('close', () => clearTimeout(handshake));
    socket.once('finish', () => setTimeout(() => socket.destroy(), CLOSE_LINGER_MS).unref());
    socket.on('error', () => socket.destroy());
    onConnection(socket);
  });
  return server;
}
