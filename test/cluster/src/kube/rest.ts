import { Agent, type RequestOptions, request } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';

/** A Kubernetes API error with the HTTP status and the server's `Status.reason`. */
export class KubeApiError extends Error {
  readonly code = 'CLUSTER_KUBE_API';
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'KubeApiError';
  }
}

export interface WatchEvent<T> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: T;
}

export type Query = Record<string, string | number | boolean | undefined>;

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/**
 * The small REST client the test harness itself uses (pod kubelet, volume provisioner, setup). It speaks
 * plain HTTPS with the kubeconfig's credentials and keeps connections alive.
 */
export class KubeRest {
  readonly #base: URL;
  #options: RequestOptions | undefined;
  readonly #kubeConfig: KubeConfig;

  constructor(kubeConfig: KubeConfig) {
    this.#kubeConfig = kubeConfig;
    const server = kubeConfig.getCurrentCluster()?.server;
    if (!server) throw new Error('the kubeconfig has no current cluster');
    this.#base = new URL(server);
  }

  /** A client for the current context of a kubeconfig file (e.g. the one `opkit-cluster up` printed). */
  static fromFile(kubeconfigPath: string): KubeRest {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfigPath);
    return new KubeRest(kubeConfig);
  }

  async #requestOptions(): Promise<RequestOptions> {
    if (!this.#options) {
      const opts: RequestOptions = {};
      await this.#kubeConfig.applyToHTTPSOptions(opts);
      opts.agent = new Agent({
        keepAlive: true,
        ca: opts.ca,
        cert: opts.cert,
        key: opts.key,
        maxSockets: 16,
      });
      this.#options = opts;
    }
    return this.#options;
  }

  async #open(
    method: string,
    path: string,
    body: string | undefined,
    contentType: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<import('node:http').IncomingMessage> {
    const base = await this.#requestOptions();
    return new Promise((resolve, reject) => {
      const req = request(
        {
          ...base,
          hostname: this.#base.hostname,
          port: this.#base.port,
          method,
          path,
          timeout: timeoutMs,
          // An abort destroys the request, before its answer's headers as while its body streams.
          signal,
          headers: {
            ...(base.headers ?? {}),
            accept: 'application/json',
            // Explicit length: Node sends DELETE bodies neither chunked nor sized otherwise, which desyncs
            // the kept-alive connection.
            ...(body !== undefined
              ? { 'content-type': contentType, 'content-length': Buffer.byteLength(body) }
              : {}),
          },
        },
        resolve,
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  /** One request; JSON in and out. Non-2xx answers throw {@link KubeApiError}. */
  async request<T>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    options: {
      body?: unknown;
      contentType?: string;
      query?: Query;
      timeoutMs?: number;
      /** Fails the request with an AbortError once it aborts. */
      signal?: AbortSignal;
    } = {},
  ): Promise<T> {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const res = await this.#open(
      method,
      withQuery(path, options.query),
      body,
      options.contentType ?? 'application/json',
      options.timeoutMs ?? 30_000,
      options.signal,
    );
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      let reason = '';
      let message = text;
      try {
        const parsed = JSON.parse(text) as { reason?: string; message?: string };
        reason = parsed.reason ?? '';
        message = parsed.message ?? text;
      } catch {
        // not a Status object
      }
      throw new KubeApiError(status, reason, `${method} ${path}: ${status} ${message}`);
    }
    return (text.length > 0 ? JSON.parse(text) : undefined) as T;
  }

  /** A plain-text GET such as `/readyz`; resolves with the status code and body, never throws on non-2xx. */
  async getText(path: string, timeoutMs = 5000): Promise<{ status: number; body: string }> {
    const res = await this.#open('GET', path, undefined, '', timeoutMs, undefined);
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return { status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') };
  }

  /**
   * Streams a watch until the server closes it, `signal` aborts or an ERROR event arrives (returned so the
   * caller can relist on 410 Gone). An abort ends it at any point, before the server answered too (a server
   * holds a watch's answer back while its watch cache initialises): it then resolves with undefined.
   */
  async watch<T>(
    path: string,
    query: Query,
    onEvent: (event: WatchEvent<T>) => void,
    signal: AbortSignal,
  ): Promise<WatchEvent<T> | undefined> {
    let buffered = '';
    try {
      const res = await this.#open(
        'GET',
        withQuery(path, { ...query, watch: true, allowWatchBookmarks: true }),
        undefined,
        '',
        0,
        signal,
      );
      if ((res.statusCode ?? 0) !== 200) {
        res.resume();
        throw new KubeApiError(res.statusCode ?? 0, '', `watch ${path}: ${res.statusCode}`);
      }
      for await (const chunk of res) {
        buffered += (chunk as Buffer).toString('utf8');
        let newline = buffered.indexOf('\n');
        while (newline >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          newline = buffered.indexOf('\n');
          if (line.trim().length === 0) continue;
          const event = JSON.parse(line) as WatchEvent<T>;
          if (event.type === 'ERROR') return event;
          onEvent(event);
        }
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    }
    return undefined;
  }

  close(): void {
    (this.#options?.agent as Agent | undefined)?.destroy();
  }
}
