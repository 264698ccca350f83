import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:tls';
import { CertWatcher } from '../certs/cert-watcher.js';
import type { Checker } from '../healthz/probe-server.js';
import type { Logger } from '../log/index.js';
import type { RuntimeMetrics } from '../metrics/runtime-metrics.js';
import { Conversions } from './conversion.js';
import { BadRequestError } from './request.js';

/** Where controller-runtime, kubebuilder's scaffold and OLM put the serving certificate. */
export const DEFAULT_WEBHOOK_CERT_DIR = '/tmp/k8s-webhook-server/serving-certs';
export const DEFAULT_WEBHOOK_PORT = 9443;
/** The one conversion path for every kind, as kubebuilder's CRD patches name it. */
export const CONVERSION_PATH = '/convert';
/**
 * The largest review accepted: an UPDATE carries the object twice and the API server stores objects of up
 * to 3 MiB, so controller-runtime's 7 MiB.
 */
export const DEFAULT_MAX_REQUEST_BYTES = 7 * 1024 * 1024;

/** Takes a decoded review, returns the review to send back. */
export type WebhookHandler = (review: unknown) => Promise<unknown>;

export interface WebhookServerOptions {
  /** @default all interfaces */
  readonly host?: string;
  /** 0 picks a free port (tests). @default 9443 */
  readonly port?: number;
  /** Directory of the serving certificate and key. @default /tmp/k8s-webhook-server/serving-certs */
  readonly certDir?: string;
  /** @default 'tls.crt' */
  readonly certName?: string;
  /** @default 'tls.key' */
  readonly keyName?: string;
  /** @default 7 MiB */
  readonly maxRequestBytes?: number;
  /** @default 10000 */
  readonly certPollIntervalMs?: number;
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
    req.on('error', reject);
  });
}

/**
 * The HTTPS server behind admission and conversion webhooks (TLS 1.2 or later, HTTP/1.1 only as
 * controller-runtime defaults to). Every request gets an answer and the process goes on: a body that is too
 * large, no JSON or no review is refused with 4xx, a failing handler is a 500. The certificate is reloaded
 * when its files change. It runs on every replica, leader or not, since the API server calls any of them.
 */
export class WebhookServer {
  readonly needLeaderElection = false;
  readonly #o: WebhookServerOptions;
  readonly #handlers = new Map<string, WebhookHandler>();
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
      dir: this.#o.certDir ?? DEFAULT_WEBHOOK_CERT_DIR,
      certName: this.#o.certName,
      keyName: this.#o.keyName,
      pollIntervalMs: this.#o.certPollIntervalMs,
      logger: log,
    });
    const server = createServer({ ...certs.current, minVersion: 'TLSv1.2' }, (req, res) => {
      this.#serve(req, res);
    });
    // A client that sends its headers slowly or never finishes its body does not hold a connection open.
    server.headersTimeout = 10_000;
    server.requestTimeout = 30_000;
    server.on('clientError', (_error, socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
      else socket.destroy();
    });
    server.on('tlsClientError', () => {}); // a client that fails the handshake only loses its connection
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
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 5_000).unref();
    });
  }

  #serve(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const handler = this.#handlers.get(path);
    const label = handler ? path : 'unknown';
    const metrics = this.#o.metrics;
    const started = process.hrtime.bigint();
    metrics?.webhookRequestsInFlight.inc({ webhook: label });
    const finish = (status: number, body: string, type: string) => {
      metrics?.webhookRequestsInFlight.dec({ webhook: label });
      metrics?.webhookRequests.inc({ webhook: label, code: String(status) });
      metrics?.webhookLatency.observe({ webhook: label }, Number(process.hrtime.bigint() - started) / 1e9);
      if (res.headersSent || res.destroyed) return;
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    const fail = (status: number, message: string) =>
      finish(status, `${message}\n`, 'text/plain; charset=utf-8');
    (async () => {
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
      return JSON.stringify(await handler(review));
    })().then(
      (json) => finish(200, json, 'application/json'),
      (error: unknown) => {
        if (error instanceof HttpError) return fail(error.status, error.message);
        if (error instanceof BadRequestError) return fail(400, error.message);
        metrics?.webhookPanics.inc();
        this.#o.logger?.error('webhook failed', error, { webhook: path });
        fail(500, `internal error: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  }
}
