import type { IncomingMessage } from 'node:http';
import { Agent, type RequestOptions, request } from 'node:https';
import { ApiError, ConnectionError } from '../../errors/errors.js';
import type { RuntimeMetrics } from '../../metrics/runtime-metrics.js';
import type { ClusterConnection } from './kubeconfig.js';

// Not an ES module import: that would evaluate every export of node:tls, its root certificate list among them.
const { createSecureContext } = process.getBuiltinModule('node:tls');

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestSpec {
  readonly method: HttpMethod;
  readonly path: string;
  readonly query?: Query;
  readonly body?: unknown;
  readonly contentType?: string;
  /** Whole-request timeout; 0 for none (watches use an inactivity watchdog instead). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** Kept-alive connections for requests, at most this many at once; more requests wait for one. */
const MAX_REQUEST_CONNECTIONS = 64;

/**
 * HTTPS to the API server with the kubeconfig's credentials over kept-alive connections. Every request is
 * counted in `rest_client_requests_total{code,method,host}` (code `<error>` when no answer came), which is
 * how tests and benchmarks count API traffic. No client-side rate limit: like controller-runtime ≥ 0.21 we
 * rely on the server's priority and fairness.
 *
 * Requests and streams use separate connection pools. Over HTTP/1.1 a watch holds its connection for as long
 * as it runs, and an operator runs one per kind and watched namespace: in a shared, bounded pool, a few
 * dozen namespaces' watches would take every connection and every request would wait for a watch to end.
 */
export class Transport {
  readonly host: string;
  readonly #server: URL;
  readonly #kubeConfig: ClusterConnection;
  readonly #metrics: RuntimeMetrics | undefined;
  readonly #requestTimeoutMs: number;
  #options: Promise<ConnectionOptions> | undefined;
  /** Bearer tokens from exec plugins expire; options are rebuilt after this time. */
  #optionsBuiltAt = 0;
  /** Once set, every request but a GET is refused with it. */
  #writeFence: Error | undefined;

  readonly #maxResponseBytes: number;

  /** `maxResponseBytes`: the largest answer read into memory. @default 256 MiB */
  constructor(
    kubeConfig: ClusterConnection,
    metrics?: RuntimeMetrics,
    options: { maxResponseBytes?: number; requestTimeoutMs?: number } = {},
  ) {
    this.#maxResponseBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    const server = kubeConfig.getCurrentCluster()?.server;
    if (!server) throw new ConnectionError('the kubeconfig has no current cluster server');
    this.#server = new URL(server);
    this.host = this.#server.host;
    this.#kubeConfig = kubeConfig;
    this.#metrics = metrics;
  }

  #connectionOptions(): Promise<ConnectionOptions> {
    // Credentials are re-read every minute (exec plugins hand out short-lived tokens); the TLS agents, and so
    // the kept-alive connections, are built once.
    if (!this.#options || Date.now() - this.#optionsBuiltAt > 60_000) {
      this.#optionsBuiltAt = Date.now();
      const previous = this.#options;
      this.#options = (async () => {
        const credentials: RequestOptions = {};
        await this.#kubeConfig.applyToHTTPSOptions(credentials);
        const { ca, cert, key, rejectUnauthorized, servername, headers } = credentials;
        const agents =
          (await previous?.catch(() => undefined))?.agents ??
          (() => {
            // One TLS context for every connection. The certificates stay out of each request's options:
            // Node's agent names a request's connection pool by concatenating its `ca`, `cert` and `key`.
            const tls = { secureContext: createSecureContext({ ca, cert, key }), rejectUnauthorized };
            return {
              request: new Agent({ keepAlive: true, maxSockets: MAX_REQUEST_CONNECTIONS, ...tls }),
              // A connection for each open stream, however many there are.
              stream: new Agent({ keepAlive: true, ...tls }),
            };
          })();
        return { agents, headers, ...(servername ? { servername } : {}) };
      })();
    }
    return this.#options;
  }

  #count(code: string, method: HttpMethod): void {
    this.#metrics?.restClientRequests.inc({ code, method, host: this.host });
  }

  /**
   * Refuses every write from now on with `reason`: a replica that lost its leader lease must not act, whatever
   * its reconcilers do with their abort signal. Reads go on.
   */
  fenceWrites(reason: Error): void {
    this.#writeFence ??= reason;
  }

  /**
   * Called with the text of every `Warning` header the API server sends (deprecated API versions, webhook
   * and validation warnings), as client-go's WarningHandler is.
   */
  onWarning: ((warning: string) => void) | undefined;

  /**
   * Opens a long-lived stream (a watch) on a connection of its own and returns the response; non-2xx
   * answers reject with ApiError.
   */
  open(spec: RequestSpec): Promise<IncomingMessage> {
    return this.#send(spec, 'stream');
  }

  async #send(spec: RequestSpec, pool: keyof ConnectionOptions['agents']): Promise<IncomingMessage> {
    if (this.#writeFence && spec.method !== 'GET') throw this.#writeFence;
    const { agents, ...base } = await this.#connectionOptions();
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const path = withQuery(spec.path, spec.query);
    let res: IncomingMessage;
    try {
      res = await new Promise<IncomingMessage>((resolve, reject) => {
        const req = request(
          {
            ...base,
            agent: agents[pool],
            hostname: this.#server.hostname,
            port: this.#server.port || 443,
            method: spec.method,
            path,
            signal: spec.signal,
            headers: {
              ...(base.headers ?? {}),
              accept: 'application/json',
              // Explicit length: Node sends a DELETE body neither chunked nor sized otherwise.
              ...(body !== undefined
                ? {
                    'content-type': spec.contentType ?? 'application/json',
                    'content-length': Buffer.byteLength(body),
                  }
                : {}),
            },
          },
          resolve,
        );
        if (spec.timeoutMs) {
          req.setTimeout(spec.timeoutMs, () =>
            // Coded as a socket timeout, so that `isTransient` knows it from a refused certificate.
            req.destroy(
              Object.assign(new Error(`no answer within ${spec.timeoutMs} ms`), { code: 'ETIMEDOUT' }),
            ),
          );
        }
        req.on('error', reject);
        req.end(body);
      });
    } catch (error) {
      this.#count('<error>', spec.method);
      throw new ConnectionError(`${spec.method} ${spec.path}: ${(error as Error).message}`, { cause: error });
    }
    const status = res.statusCode ?? 0;
    this.#count(String(status), spec.method);
    if (this.onWarning) for (const w of warningTexts(res.headersDistinct.warning)) this.onWarning(w);
    if (status >= 200 && status < 300) return res;
    const text = await readAll(res, this.#maxResponseBytes).catch(() => '');
    let reason = '';
    let message = text;
    try {
      const parsed = JSON.parse(text) as { reason?: string; message?: string };
      reason = parsed.reason ?? '';
      message = parsed.message ?? text;
    } catch {
      // not a Status object
    }
    throw new ApiError(
      status,
      reason,
      `${spec.method} ${spec.path}: ${status} ${reason}: ${message}`,
      spec.method,
      spec.path,
      message,
    );
  }

  /** One JSON request and its parsed answer. */
  async request<T>(spec: RequestSpec): Promise<T> {
    const res = await this.#send({ timeoutMs: this.#requestTimeoutMs, ...spec }, 'request');
    let text: string;
    try {
      text = await readAll(res, this.#maxResponseBytes);
    } catch (error) {
      throw new ConnectionError(`${spec.method} ${spec.path}: ${(error as Error).message}`, { cause: error });
    }
    return (text.length > 0 ? JSON.parse(text) : undefined) as T;
  }

  /** Drops kept-alive connections (on shutdown). */
  async close(): Promise<void> {
    const opts = await this.#options?.catch(() => undefined);
    opts?.agents.request.destroy();
    opts?.agents.stream.destroy();
  }
}

interface ConnectionOptions extends Pick<RequestOptions, 'headers' | 'servername'> {
  readonly agents: { readonly request: Agent; readonly stream: Agent };
}

/**
 * The texts of RFC 7234 warning headers (`299 - "text" ["date"]`), as the API server writes them; several
 * may share one header line, separated by commas.
 */
export function warningTexts(headers: readonly string[] | undefined): string[] {
  const texts: string[] = [];
  for (const header of headers ?? []) {
    for (const m of header.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"(?: "[^"]*")?/g)) {
      texts.push((m[1] ?? '').replace(/\\(.)/g, '$1'));
    }
  }
  return texts;
}

/**
 * The most a single answer may hold: list pages are bounded by their `limit`, objects by etcd's 1.5 MB, so
 * anything larger is not an API answer, and is not buffered.
 */
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;
/** How long one JSON request may take unless its client says otherwise (watches have their own watchdog). */
const REQUEST_TIMEOUT_MS = 60_000;

async function readAll(res: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      res.destroy();
      throw new Error(`answer larger than ${limit} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
