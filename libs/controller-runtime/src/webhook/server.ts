import type { IncomingMessage } from 'node:http';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:tls';
import type { Checker } from '../internal/healthz/probe-server.js';
import type { Logger } from '../log/index.js';
import type { RuntimeMetrics } from '../metrics/runtime-metrics.js';
import {
  ClientGoneError,
  createBoundedServer,
  HandlerTimeoutError,
  type Reply,
  type ServerLimits,
} from '../serving/bounded-server.js';
import { CertWatcher } from '../serving/cert-watcher.js';
import { Conversions } from './conversion.js';
import { BadRequestError } from './request.js';

/** Where controller-runtime, kubebuilder's scaffold and OLM put the serving certificate. */
export const DEFAULT_WEBHOOK_CERT_PATH = '/tmp/k8s-webhook-server/serving-certs';
export const DEFAULT_WEBHOOK_PORT = 9443;
/** The one conversion path for every kind, as kubebuilder's CRD patches name it. */
export const CONVERSION_PATH = '/convert';
/**
 * The largest review accepted: an UPDATE carries the object twice and the API server stores objects of up
 * to 3 MiB, so controller-runtime's 7 MiB.
 */
export const DEFAULT_MAX_REQUEST_BYTES = 7 * 1024 * 1024;

/**
 * Takes a decoded review, returns the review to send back. `signal` aborts when the request's deadline passes
 * or its client goes away; the answer is then no longer waited for.
 */
export type WebhookHandler = (review: unknown, signal: AbortSignal) => Promise<unknown>;

export interface WebhookServerOptions {
  /** @default all interfaces */
  readonly host?: string;
  /** 0 picks a free port (tests). @default 9443 */
  readonly port?: number;
  /** Directory of the serving certificate and key. @default /tmp/k8s-webhook-server/serving-certs */
  readonly certPath?: string;
  /** @default 'tls.crt' */
  readonly certName?: string;
  /** @default 'tls.key' */
  readonly certKey?: string;
  /** @default 7 MiB */
  readonly maxRequestBytes?: number;
  /** @default 10000 */
  readonly certPollIntervalMs?: number;
  /** Connection and handler limits (handler deadline 30 s, handshake 10 s, …). @default DEFAULT_SERVER_LIMITS */
  readonly limits?: Partial<ServerLimits>;
  readonly metrics?: RuntimeMetrics;
  readonly logger?: Logger;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The body, up to `limit` bytes; a client that goes away before its end (or is cut off at the deadline, whose
 * answer closes the connection) is a {@link ClientGoneError}.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
      reject(new HttpError(413, `request body of ${declared} bytes is over the limit of ${limit}`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new HttpError(413, `request body is over the limit of ${limit} bytes`));
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    // The request stream fails or closes early only when its connection does.
    req.on('error', () => reject(new ClientGoneError(BODY_NOT_RECEIVED)));
    req.on('close', () => {
      if (!req.complete) reject(new ClientGoneError(BODY_NOT_RECEIVED));
    });
  });
}

const BODY_NOT_RECEIVED = 'the client closed the connection before the end of its body';
const TEXT = 'text/plain; charset=utf-8';
const textReply = (status: number, message: string): Reply => ({ status, body: `${message}\n`, type: TEXT });

/**
 * The HTTPS server behind admission and conversion webhooks (TLS 1.2 or later, HTTP/1.1 only as
 * controller-runtime defaults to). Every request gets an answer and the process goes on: a body that is too
 * large, no JSON or no review is refused with 4xx, a handler that throws or answers nothing is a 500, one that
 * misses its deadline a 503; connections are bounded by `limits` (see `createBoundedServer`). The certificate
 * is reloaded when its files change. It runs on every replica, leader or not, since the API server calls any of them.
 */
export class WebhookServer {
  readonly needLeaderElection = false;
  readonly #o: WebhookServerOptions;
  readonly #handlers = new Map<string, WebhookHandler>();
  /** Each request's path, taken from its URL once, when it comes; its answer, failure and metrics reuse it. */
  readonly #paths = new WeakMap<IncomingMessage, string>();
  #server: Server | undefined;
  #address: AddressInfo | undefined;
  #conversions: Conversions | undefined;

  constructor(options: WebhookServerOptions = {}) {
    this.#o = options;
  }

  /** Serves `handler` at `path` (e.g. `/mutate-cache-example-com-v1beta1-memcached`). */
  register(path: string, handler: WebhookHandler): void {
    if (this.#server) throw new Error('webhooks must be registered before the server starts');
    if (!path.startsWith('/')) throw new Error(`webhook path must start with "/": ${path}`);
    if (this.#handlers.has(path)) throw new Error(`a webhook is already registered at ${path}`);
    this.#handlers.set(path, handler);
  }

  /** The conversions served at `/convert` (registered there on first use). */
  get conversions(): Conversions {
    if (!this.#conversions) {
      const conversions = new Conversions();
      this.register(CONVERSION_PATH, (review) => conversions.handle(review));
      this.#conversions = conversions;
    }
    return this.#conversions;
  }

  get paths(): readonly string[] {
    return [...this.#handlers.keys()];
  }

  /** The bound address once started (useful with port 0). */
  get address(): AddressInfo | undefined {
    return this.#address;
  }

  /**
   * The readiness check: passes once a TLS handshake with the server succeeds, so a pod is not sent admission
   * requests before it can answer them (or while it cannot). Passes when no webhook is registered.
   */
  readonly startedChecker: Checker = () => {
    if (this.#handlers.size === 0) return;
    const address = this.#address;
    if (!address || !this.#server?.listening) throw new Error('webhook server is not serving');
    const host = address.address === '::' || address.address === '0.0.0.0' ? 'localhost' : address.address;
    return new Promise<void>((resolve, reject) => {
      const socket = connect({ host, port: address.port, rejectUnauthorized: false, timeout: 5_000 });
      socket.once('secureConnect', () => {
        socket.end();
        resolve();
      });
      socket.once('timeout', () => {
        socket.destroy();
        reject(new Error('webhook server TLS handshake timed out'));
      });
      socket.once('error', (error) => reject(new Error(`webhook server not reachable: ${error.message}`)));
    });
  };

  /** Serves until `signal` aborts; rejects when the certificate cannot be read or the port not bound. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#handlers.size === 0 || signal.aborted) return;
    const log = this.#o.logger;
    const certs = new CertWatcher({
      purpose: 'webhook',
      certPath: this.#o.certPath ?? DEFAULT_WEBHOOK_CERT_PATH,
      certName: this.#o.certName,
      certKey: this.#o.certKey,
      pollIntervalMs: this.#o.certPollIntervalMs,
      logger: log,
    });
    const server = createBoundedServer({
      tls: certs.current,
      limits: this.#o.limits,
      handle: (req, signal) => this.#review(req, signal),
      failure: (error, req) => this.#failure(error, req),
      settled: (req, reply, seconds) => this.#settled(req, reply, seconds),
    });
    this.#server = server;
    certs.watch(signal, (pair) => server.setSecureContext({ ...pair, minVersion: 'TLSv1.2' }));
    this.#address = await new Promise<AddressInfo>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#o.port ?? DEFAULT_WEBHOOK_PORT, this.#o.host, () => {
        server.off('error', reject);
        resolve(server.address() as AddressInfo);
      });
    });
    log?.info('serving webhooks', {
      address: `${this.#address.address}:${this.#address.port}`,
      paths: this.paths.join(','),
    });
    // An abort while the port was being bound has fired already: a listener added now would wait for ever.
    if (!signal.aborted) {
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    }
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 5_000).unref();
    });
  }

  /** The metrics label of a request: its path when a webhook is registered there. */
  #label(req: IncomingMessage): string {
    const path = this.#pathOf(req);
    return this.#handlers.has(path) ? path : 'unknown';
  }

  #pathOf(req: IncomingMessage): string {
    return this.#paths.get(req) ?? pathOf(req);
  }

  async #review(req: IncomingMessage, signal: AbortSignal): Promise<Reply> {
    const path = pathOf(req);
    this.#paths.set(req, path);
    const handler = this.#handlers.get(path);
    this.#o.metrics?.webhookRequestsInFlight.inc({ webhook: handler ? path : 'unknown' });
    if (!handler) throw new HttpError(404, `no webhook at ${path || '(none)'}`);
    if (req.method !== 'POST') throw new HttpError(405, `${req.method} is not allowed; webhooks take POST`);
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      throw new HttpError(400, `content type ${JSON.stringify(type)}; expected application/json`);
    }
    const body = await readBody(req, this.#o.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES);
    let review: unknown;
    try {
      review = JSON.parse(body.toString('utf8'));
    } catch (error) {
      throw new BadRequestError(`request body is not JSON: ${(error as Error).message}`);
    }
    const answer = await handler(review, signal);
    const json = answer === undefined ? undefined : JSON.stringify(answer);
    if (json === undefined) {
      throw new Error(
        `the webhook at ${path} answered ${String(answer)}; its handler must resolve to a review`,
      );
    }
    return { status: 200, body: json, type: 'application/json' };
  }

  /** Refusals are 4xx; a deadline a 503; a client gone is no error; any other failure is a handler's bug. */
  #failure(error: unknown, req: IncomingMessage): Reply {
    if (error instanceof HttpError) return textReply(error.status, error.message);
    if (error instanceof BadRequestError) return textReply(400, error.message);
    const webhook = this.#pathOf(req);
    if (error instanceof ClientGoneError) {
      this.#o.logger?.debug('webhook request abandoned by its client', { webhook, reason: error.message });
      return textReply(400, error.message);
    }
    if (error instanceof HandlerTimeoutError) {
      this.#o.logger?.error('webhook did not answer in time', error, { webhook });
      return textReply(503, `webhook ${webhook}: ${error.message}`);
    }
    this.#o.metrics?.webhookPanics.inc();
    this.#o.logger?.error('webhook failed', error, { webhook });
    return textReply(500, `internal error: ${error instanceof Error ? error.message : String(error)}`);
  }

  #settled(req: IncomingMessage, reply: Reply, seconds: number): void {
    const metrics = this.#o.metrics;
    if (!metrics) return;
    const webhook = this.#label(req);
    metrics.webhookRequestsInFlight.dec({ webhook });
    metrics.webhookRequests.inc({ webhook, code: String(reply.status) });
    metrics.webhookLatency.observe({ webhook }, seconds);
  }
}

function pathOf(req: IncomingMessage): string {
  return (req.url ?? '').split('?')[0] ?? '';
}
