import http from 'node:http';
import https from 'node:https';
import type { Writable } from 'node:stream';
import {
  type ProxySettings,
  proxyAuthorization,
  proxyFor,
  proxyFromEnvironment,
  TunnelingAgent,
} from './proxy.js';

/** One HTTP exchange with the body fully buffered (empty when it went to the request's sink). */
export interface HttpResponse {
  readonly status: number;
  readonly url: URL;
  /** Lower-cased header names; repeated headers keep every value. */
  readonly headers: Readonly<Record<string, readonly string[]>>;
  readonly body: Buffer;
}

/** A request for {@link HttpTransport.send}. */
export interface HttpRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Uint8Array;
  /** Called with the running count of body bytes handed to the socket. */
  readonly onUploadProgress?: (bytes: number) => void;
  /** Follow up to 5 redirects (GET and HEAD only); `Authorization` is dropped when the origin changes. */
  readonly followRedirects?: boolean;
  /** The largest response body read (into memory or the sink); more ends the request with an error. @default 64 MiB */
  readonly maxBodyBytes?: number;
  /**
   * Where the body of a 2xx answer to a GET goes instead of memory: a new sink per attempt, written with
   * back-pressure and ended when the body is complete. The response then settles once the sink has finished
   * (its `final` may still refuse the content) with an empty `body`; a failed request destroys the sink.
   */
  readonly bodySink?: () => Writable;
  /** Ends the request (and a body on its way to the sink) when aborted: it rejects with an `AbortError`. */
  readonly signal?: AbortSignal;
}

/**
 * A response body of another length than announced: `short` of its Content-Length (the connection closed
 * early, which may be a dropped connection and is worth a retry), `longer` than its Content-Length (bytes past
 * it on the connection), or `over-limit`, past what the request allows.
 */
export class BodyLengthError extends Error {
  override readonly name = 'BodyLengthError';

  constructor(
    readonly kind: 'short' | 'longer' | 'over-limit',
    /** Body bytes received; for a body over the limit, as far as it was read. */
    readonly received: number,
    /** What the response's Content-Length said, if it said. */
    readonly contentLength: number | undefined,
    /** The request's limit. */
    readonly limit: number,
  ) {
    const said = contentLength === undefined ? '' : `, Content-Length said ${contentLength}`;
    super(
      kind === 'short'
        ? `sent ${received} bytes${said}`
        : kind === 'longer'
          ? `sent more than the ${contentLength} bytes its Content-Length said`
          : `sent more than the ${limit} bytes expected${said}`,
    );
  }

  /** The body ended before its Content-Length. */
  get short(): boolean {
    return this.kind === 'short';
  }
}

/** What a response without a body limit of its own may hold (errors, tokens, catalogs). */
const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/** TLS and timeout settings of an {@link HttpTransport}. */
export interface HttpTransportOptions {
  /** Extra CA certificates (PEM) trusted for HTTPS. */
  readonly ca?: string | Buffer;
  /** Accept any server certificate (self-signed registries). */
  readonly insecureSkipTlsVerify?: boolean;
  /** Idle socket timeout per request; default 60 s. */
  readonly timeoutMs?: number;
  readonly userAgent?: string;
  /**
   * The proxies requests go through; default: `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` of the environment
   * (as Go programs read them). `false` connects directly.
   */
  readonly proxy?: ProxySettings | false;
}

const UPLOAD_SLICE = 64 * 1024;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Minimal keep-alive HTTP(S) client over `node:http`/`node:https` with buffered (or, on request, streamed)
 * bodies and upload progress.
 */
export class HttpTransport {
  readonly #httpAgent: http.Agent;
  readonly #httpsAgent: https.Agent;
  readonly #timeoutMs: number;
  readonly #userAgent: string;
  readonly #proxy: ProxySettings;
  readonly #tlsOptions: https.AgentOptions;
  /** Tunnelling agents by proxy URL. */
  readonly #tunnels = new Map<string, TunnelingAgent>();

  constructor(options: HttpTransportOptions = {}) {
    this.#proxy = options.proxy === false ? {} : (options.proxy ?? proxyFromEnvironment());
    this.#httpAgent = new http.Agent({ keepAlive: true });
    this.#tlsOptions = {
      keepAlive: true,
      ...(options.ca === undefined ? {} : { ca: options.ca }),
      rejectUnauthorized: options.insecureSkipTlsVerify !== true,
    };
    this.#httpsAgent = new https.Agent(this.#tlsOptions);
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#userAgent = options.userAgent ?? '@opkit/oci';
  }

  /** Sends `request`; rejects only on transport errors (connection, TLS, timeout), never on a status code. */
  async send(request: HttpRequest): Promise<HttpResponse> {
    let current = request;
    for (let hop = 0; ; hop++) {
      const response = await this.#once(current);
      const location = response.headers.location?.[0];
      const canFollow =
        current.followRedirects === true && (current.method === 'GET' || current.method === 'HEAD');
      if (!canFollow || !REDIRECTS.has(response.status) || location === undefined || hop >= 5)
        return response;
      const next = new URL(location, current.url);
      const headers: Record<string, string> = { ...current.headers };
      if (next.origin !== current.url.origin) {
        for (const key of Object.keys(headers))
          if (key.toLowerCase() === 'authorization') delete headers[key];
      }
      current = { ...current, url: next, headers };
    }
  }

  /** Destroys pooled sockets. */
  close(): void {
    this.#httpAgent.destroy();
    this.#httpsAgent.destroy();
    for (const agent of this.#tunnels.values()) agent.destroy();
  }

  /** Where a request to `url` connects: directly, to a proxy in absolute form (http), or through a tunnel (https). */
  #route(url: URL): {
    readonly target: URL;
    readonly path?: string;
    readonly agent: http.Agent;
    readonly headers: Record<string, string>;
  } {
    const proxy = proxyFor(this.#proxy, url);
    const isHttps = url.protocol === 'https:';
    if (proxy === undefined)
      return { target: url, agent: isHttps ? this.#httpsAgent : this.#httpAgent, headers: {} };
    if (isHttps) {
      let agent = this.#tunnels.get(proxy.href);
      if (agent === undefined) {
        agent = new TunnelingAgent(proxy, this.#tlsOptions);
        this.#tunnels.set(proxy.href, agent);
      }
      return { target: url, agent, headers: {} };
    }
    // A plain-http request goes to the proxy with the absolute URL as its target.
    const authorization = proxyAuthorization(proxy);
    return {
      target: new URL(proxy.origin), // the proxy's own credentials go in Proxy-Authorization only
      path: url.href,
      agent: this.#httpAgent,
      headers: {
        host: url.host,
        ...(authorization === undefined ? {} : { 'proxy-authorization': authorization }),
      },
    };
  }

  #once(request: HttpRequest): Promise<HttpResponse> {
    const { url, body } = request;
    const route = this.#route(url);
    const headers: Record<string, string> = {
      'user-agent': this.#userAgent,
      ...route.headers,
      ...request.headers,
    };
    if (
      body !== undefined ||
      request.method === 'PUT' ||
      request.method === 'PATCH' ||
      request.method === 'POST'
    ) {
      headers['content-length'] = String(body?.byteLength ?? 0);
    }
    return new Promise<HttpResponse>((resolvePromise, reject) => {
      let answer: AnswerProgress | undefined;
      const options: http.RequestOptions = {
        method: request.method,
        headers,
        agent: route.agent,
        timeout: this.#timeoutMs,
        ...(route.path === undefined ? {} : { path: route.path }),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      };
      const req = (route.target.protocol === 'https:' ? https : http).request(
        route.target,
        options,
        (res) => {
          answer = readAnswer(req, res, request, resolvePromise, reject);
        },
      );
      req.on('timeout', () => {
        const err = new Error(`request timed out after ${this.#timeoutMs} ms`) as NodeJS.ErrnoException;
        err.code = 'ETIMEDOUT';
        req.destroy(err);
      });
      // Bytes past a complete body make the parser fail: the registry sent more than its Content-Length said.
      req.on('error', (err: NodeJS.ErrnoException) => {
        // The parser may fail before the body it read is handed on: count what it holds too.
        const read = answer === undefined ? 0 : answer.received + answer.res.readableLength;
        const past =
          answer?.contentLength !== undefined &&
          read >= answer.contentLength &&
          err.code?.startsWith('HPE_') === true;
        const reason =
          past && answer !== undefined
            ? new BodyLengthError('longer', read, answer.contentLength, answer.limit)
            : err;
        answer?.sink?.destroy(reason);
        reject(reason);
      });
      sendBody(req, body, request.onUploadProgress);
    });
  }
}

/** How much of an answer's body came, against what was said and allowed, and where it goes. */
interface AnswerProgress {
  received: number;
  readonly contentLength: number | undefined;
  readonly limit: number;
  readonly res: http.IncomingMessage;
  /** The request's sink, for a body that streams. */
  readonly sink: Writable | undefined;
}

/**
 * Reads an answer's body within the request's limit, and settles with it; a body announced or grown past the
 * limit, or cut short of its Content-Length, is refused as such.
 */
function readAnswer(
  req: http.ClientRequest,
  res: http.IncomingMessage,
  request: HttpRequest,
  resolve: (response: HttpResponse) => void,
  reject: (reason: unknown) => void,
): AnswerProgress {
  const chunks: Buffer[] = [];
  const limit = request.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const header = res.headers['content-length'];
  const contentLength =
    request.method !== 'HEAD' && header !== undefined && /^\d+$/.test(header) ? Number(header) : undefined;
  const status = res.statusCode ?? 0;
  const streams = request.bodySink !== undefined && request.method === 'GET' && status >= 200 && status < 300;
  // A body announced past the limit is refused before any of it is read (and before a sink is made).
  if (contentLength !== undefined && contentLength > limit) {
    req.destroy(new BodyLengthError('over-limit', 0, contentLength, limit));
    return { received: 0, contentLength, limit, res, sink: undefined };
  }
  const sink = streams ? request.bodySink?.() : undefined;
  const state: AnswerProgress = { received: 0, contentLength, limit, res, sink };
  const fail = (err: unknown): void => {
    sink?.destroy(err instanceof Error ? err : new Error(String(err)));
    reject(err);
  };
  res.on('data', (chunk: Buffer) => {
    state.received += chunk.length;
    // Cut off as soon as the body grows past what the request allows: nothing past it is kept.
    if (state.received > limit) {
      req.destroy(new BodyLengthError('over-limit', state.received, contentLength, limit));
      return;
    }
    if (sink === undefined) chunks.push(chunk);
    else if (!sink.write(chunk)) res.pause();
  });
  sink?.on('drain', () => res.resume());
  // The sink may refuse what it is given (a digest mismatch): the request ends with its reason.
  sink?.on('error', (err) => {
    req.destroy(err);
    reject(err);
  });
  // A connection closed before the announced length is a short body, said as such.
  const shortBody = (): BodyLengthError | undefined =>
    contentLength !== undefined && state.received < contentLength
      ? new BodyLengthError('short', state.received, contentLength, limit)
      : undefined;
  res.on('error', (err) => fail(shortBody() ?? err));
  res.on('close', () => {
    if (!res.complete) fail(shortBody() ?? new Error('connection closed before the answer ended'));
  });
  res.on('end', () => {
    const out: Record<string, readonly string[]> = {};
    for (const [key, values] of Object.entries(res.headersDistinct)) {
      if (values !== undefined) out[key.toLowerCase()] = values;
    }
    const response = { status, url: request.url, headers: out };
    if (sink === undefined) resolve({ ...response, body: Buffer.concat(chunks) });
    else {
      sink.once('finish', () => resolve({ ...response, body: Buffer.alloc(0) }));
      sink.end();
    }
  });
  return state;
}

/** Writes a request's body in slices, reporting the bytes sent, then ends the request. */
function sendBody(
  req: http.ClientRequest,
  body: HttpRequest['body'],
  onProgress: HttpRequest['onUploadProgress'],
): void {
  if (body === undefined || body.byteLength === 0) {
    req.end();
    return;
  }
  let offset = 0;
  const writeNext = (): void => {
    while (offset < body.byteLength) {
      const end = Math.min(offset + UPLOAD_SLICE, body.byteLength);
      const slice = body.subarray(offset, end);
      offset = end;
      const sent = end;
      const ok = req.write(slice, () => onProgress?.(sent));
      if (!ok) {
        req.once('drain', writeNext);
        return;
      }
    }
    req.end();
  };
  writeNext();
}

/** Whether a transport error is worth retrying (connection refused/reset, DNS hiccup, timeout). */
export function isTransientNetworkError(err: unknown): boolean {
  if (err instanceof BodyLengthError) return err.short;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return (
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    code === 'ETIMEDOUT' ||
    code === 'EAI_AGAIN' ||
    code === 'EHOSTUNREACH' ||
    code === 'ENETUNREACH' ||
    code === 'UND_ERR_SOCKET' ||
    (err instanceof Error && err.message === 'socket hang up')
  );
}
