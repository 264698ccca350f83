import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { type DirectClient, directClient } from '../client/direct-client.js';
import type { KubeObject } from '../object.js';

/**
 * A tiny fake API server for unit tests: HTTPS on 127.0.0.1 with a throw-away self-signed certificate, core
 * `v1` discovery, collection lists served from {@link TestingApiServer.objects} (paginated by `limit` and
 * `continue`), and watches whose events the test writes. Answers can be scripted per request kind, and every
 * request is recorded.
 */

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
}

/** A scripted answer. `after`: held until this settles (never settling: the request is never answered). */
export interface Reply {
  readonly status: number;
  readonly body?: unknown;
  readonly after?: Promise<unknown>;
  /** Only for a request to this exact path (default: any collection path). */
  readonly path?: string;
}

export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: unknown;
}

export interface ApiResource {
  readonly name: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

type RequestKind = 'list' | 'watch' | 'discovery';

/** `/api/v1/configmaps` or `/api/v1/namespaces/ns/configmaps`. */
const COLLECTION = /^\/api\/v1(?:\/namespaces\/([^/]+))?\/([^/]+)$/;

/** A `Status` answer, as the API server sends for errors. */
export function statusReply(code: number, reason: string, extra: Partial<Reply> = {}): Reply {
  return {
    status: code,
    body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message: `fake ${reason}` },
    ...extra,
  };
}

/** The `ERROR` event an API server writes into a watch stream (410: the resourceVersion expired). */
export function errorEvent(code: number, reason: string): WatchEvent {
  return {
    type: 'ERROR',
    object: { kind: 'Status', apiVersion: 'v1', code, reason, message: `fake ${reason}` },
  };
}

export function bookmark(resourceVersion: string): WatchEvent {
  return { type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion } } };
}

/** An open watch: the test writes events to it and ends it. */
export class WatchStream {
  readonly request: RecordedRequest;
  /** `performance.now()` when the response headers were sent. */
  readonly openedAt = performance.now();
  /** Resolves with `performance.now()` when the connection closes, whichever side closes it. */
  readonly closed: Promise<number>;
  readonly #res: ServerResponse;

  constructor(request: RecordedRequest, res: ServerResponse) {
    this.request = request;
    this.#res = res;
    this.closed = new Promise((resolve) => res.on('close', () => resolve(performance.now())));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
  }

  /** Writes the events as newline-delimited JSON, in one chunk. */
  send(...events: WatchEvent[]): void {
    this.write(events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  }

  /** Writes raw text or bytes (e.g. half an event, or half a character). */
  write(data: string | Uint8Array): void {
    this.#res.write(data);
  }

  /** Ends the response normally, as the server does when `timeoutSeconds` elapses. */
  end(): void {
    this.#res.end();
  }
}

let certificate: Promise<{ key: Buffer; cert: Buffer }> | undefined;

/** One self-signed certificate for 127.0.0.1 per test file. */
function selfSignedCertificate(): Promise<{ key: Buffer; cert: Buffer }> {
  certificate ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fake-apiserver-'));
    try {
      const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
      await promisify(execFile)('openssl', [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-days',
        '1',
        '-keyout',
        key,
        '-out',
        cert,
      ]);
      return { key: await readFile(key), cert: await readFile(cert) };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
  return certificate;
}

export class TestingApiServer {
  /** Every request, in arrival order. */
  readonly requests: RecordedRequest[] = [];
  /** What lists return (filtered by the path's namespace), unless a reply is scripted. */
  objects: KubeObject[] = [];
  /** The list's `metadata.resourceVersion`. */
  resourceVersion = '1';
  /**
   * How many of the next watches to answer 200 and end at once, without an event, as a misbehaving server or
   * proxy does (`Infinity`: every one). Each such watch is recorded but never handed out by `nextWatch`.
   */
  watchesToEndAtOnce = 0;
  readonly #server: Server;
  readonly #resources: readonly ApiResource[];
  readonly #scripted: { kind: RequestKind; reply: Reply }[] = [];
  readonly #unclaimed: WatchStream[] = [];
  readonly #waiting: { path: string | undefined; resolve: (w: WatchStream) => void }[] = [];
  readonly #streams: WatchStream[] = [];
  readonly #clients: DirectClient[] = [];

  private constructor(server: Server, resources: readonly ApiResource[]) {
    this.#server = server;
    this.#resources = resources;
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void this.#handle(req, res));
  }

  static async start(
    resources: readonly ApiResource[] = [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true }],
  ): Promise<TestingApiServer> {
    const server = createServer(await selfSignedCertificate());
    const api = new TestingApiServer(server, resources);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return api;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  kubeConfig(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `https://127.0.0.1:${this.port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    return kc;
  }

  /** A client of this server (its connections are closed by {@link close}). */
  client(): DirectClient {
    const client = directClient(this.kubeConfig());
    this.#clients.push(client);
    return client;
  }

  /** Sets what lists return. */
  setObjects(objects: KubeObject[], resourceVersion: string): void {
    this.objects = objects;
    this.resourceVersion = resourceVersion;
  }

  /** Answers the next matching list, watch or discovery (`/api/v1`) request with `reply` instead of the default. */
  reply(kind: RequestKind, reply: Reply): void {
    this.#scripted.push({ kind, reply });
  }

  /** Collection GETs without `watch`. */
  get lists(): RecordedRequest[] {
    return this.requests.filter((r) => COLLECTION.test(r.path) && r.query.watch !== 'true');
  }

  get watches(): RecordedRequest[] {
    return this.requests.filter((r) => COLLECTION.test(r.path) && r.query.watch === 'true');
  }

  /** The next streaming watch (optionally on one path) not handed out yet, waiting for it if needed. */
  nextWatch(path?: string): Promise<WatchStream> {
    const index = this.#unclaimed.findIndex((w) => path === undefined || w.request.path === path);
    if (index >= 0) return Promise.resolve(this.#unclaimed.splice(index, 1)[0]!);
    return new Promise((resolve) => this.#waiting.push({ path, resolve }));
  }

  async close(): Promise<void> {
    for (const client of this.#clients) await client.close();
    for (const stream of this.#streams) stream.end();
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const request: RecordedRequest = {
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
    };
    this.requests.push(request);
    if (request.path === '/api/v1') {
      const scripted = this.#scripted.findIndex((s) => s.kind === 'discovery');
      if (scripted >= 0) return send(res, this.#scripted.splice(scripted, 1)[0]!.reply);
      return send(res, { status: 200, body: { kind: 'APIResourceList', resources: this.#resources } });
    }
    const match = COLLECTION.exec(request.path);
    const resource = this.#resources.find((r) => r.name === match?.[2]);
    if (!match || !resource || request.method !== 'GET') return send(res, statusReply(404, 'NotFound'));
    const kind: RequestKind = request.query.watch === 'true' ? 'watch' : 'list';
    const index = this.#scripted.findIndex(
      (s) => s.kind === kind && (s.reply.path === undefined || s.reply.path === request.path),
    );
    if (index >= 0) {
      const { reply } = this.#scripted.splice(index, 1)[0]!;
      await reply.after;
      return send(res, reply);
    }
    if (kind === 'list')
      return send(res, { status: 200, body: this.#page(resource, match[1], request.query) });
    if (this.watchesToEndAtOnce > 0) {
      this.watchesToEndAtOnce--;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end();
      return;
    }
    const stream = new WatchStream(request, res);
    this.#streams.push(stream);
    const waiter = this.#waiting.findIndex((w) => w.path === undefined || w.path === request.path);
    if (waiter >= 0) this.#waiting.splice(waiter, 1)[0]!.resolve(stream);
    else this.#unclaimed.push(stream);
  }

  #page(
    resource: ApiResource,
    namespace: string | undefined,
    query: Readonly<Record<string, string>>,
  ): unknown {
    const all = this.objects.filter((o) => namespace === undefined || o.metadata.namespace === namespace);
    const offset = Number(query.continue ?? 0);
    const limit = query.limit ? Number(query.limit) : all.length;
    const next = offset + limit;
    return {
      kind: `${resource.kind}List`,
      apiVersion: 'v1',
      metadata: {
        resourceVersion: this.resourceVersion,
        ...(next < all.length ? { continue: String(next) } : {}),
      },
      items: all.slice(offset, next),
    };
  }
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed) return; // the client gave up (or the server closed) while the reply was held
  const text = JSON.stringify(reply.body ?? {});
  res.writeHead(reply.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
