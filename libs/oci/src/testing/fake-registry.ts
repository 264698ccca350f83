import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/** One request seen by the {@link FakeRegistry}. */
export interface RecordedRequest {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly authorization?: string;
  readonly contentRange?: string;
  readonly contentType?: string;
  readonly accept?: string;
  readonly bodyLength: number;
  readonly status: number;
}

/** Authentication the fake enforces. */
export type FakeAuth =
  | { readonly kind: 'none' }
  | { readonly kind: 'basic'; readonly username: string; readonly password: string }
  | {
      readonly kind: 'bearer';
      /** When set, the token endpoint (`/token` on the same server) requires these basic credentials. */
      readonly username?: string;
      readonly password?: string;
      /** When set, the token endpoint also takes this OAuth2 refresh token (`POST`, grant_type=refresh_token). */
      readonly refreshToken?: string;
      readonly expiresIn?: number;
    };

/** A scripted failure: the next `times` requests matching `method` and `path` get `status`. */
export interface Fault {
  readonly method?: string;
  readonly path: RegExp;
  readonly status: number;
  times: number;
  readonly retryAfter?: string;
  /** Process the request normally (e.g. store the chunk) but answer `status` anyway. */
  readonly afterHandling?: boolean;
}

/** Options of {@link FakeRegistry.start}. */
export interface FakeRegistryOptions {
  readonly auth?: FakeAuth;
  /** Sent as `OCI-Chunk-Min-Length` when an upload starts. */
  readonly chunkMinLength?: number;
  /** Serve HTTPS with this key and certificate (PEM). */
  readonly tls?: { readonly key: string; readonly cert: string };
}

/**
 * An in-process registry implementing the subset of the distribution API the client uses, recording every
 * request. For unit tests only: everything is kept in memory.
 */
export class FakeRegistry {
  readonly requests: RecordedRequest[] = [];
  readonly tokenRequests: Array<{ readonly query: URLSearchParams; readonly authorization?: string }> = [];
  readonly blobs = new Map<string, Buffer>();
  readonly manifests = new Map<string, { readonly bytes: Buffer; readonly mediaType: string }>();
  readonly faults: Fault[] = [];
  /**
   * When set, blob downloads (`GET`/`HEAD`) are answered `307` to `<origin>/storage/<digest>`, as registries
   * send them to their storage.
   */
  blobRedirect: string | undefined;
  /** When set, an upload that starts is given a location on this origin (`<origin>/upload/<id>`). */
  uploadOrigin: string | undefined;
  readonly #uploads = new Map<string, { repo: string; data: Buffer }>();
  readonly #tokens = new Map<string, { scopes: string[]; expiresAt: number }>();
  readonly #server: http.Server;
  readonly #options: FakeRegistryOptions;
  #origin = '';

  private constructor(options: FakeRegistryOptions) {
    this.#options = options;
    const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.#handle(req, Buffer.concat(chunks), res));
    };
    this.#server =
      options.tls === undefined ? http.createServer(handler) : https.createServer(options.tls, handler);
  }

  /** Starts a fake registry on `127.0.0.1` with a random port. */
  static async start(options: FakeRegistryOptions = {}): Promise<FakeRegistry> {
    const fake = new FakeRegistry(options);
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    const { port } = fake.#server.address() as AddressInfo;
    fake.#origin = `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
    return fake;
  }

  /** `127.0.0.1:<port>`, the registry part of references. */
  get host(): string {
    return new URL(this.#origin).host;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #handle(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.#origin);
    const method = req.method ?? 'GET';
    const fault = this.faults.find(
      (f) => f.times > 0 && (f.method ?? method) === method && f.path.test(url.pathname),
    );
    if (fault !== undefined) fault.times--;
    const reply = (status: number, headers: Record<string, string> = {}, payload?: Buffer | string): void => {
      if (fault?.afterHandling === true) {
        status = fault.status;
        headers = { 'content-type': 'application/json' };
        payload = JSON.stringify({ errors: [{ code: 'INJECTED', message: `injected ${fault.status}` }] });
      }
      this.requests.push({
        method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        ...optional('authorization', req.headers.authorization),
        ...optional('contentRange', req.headers['content-range']),
        ...optional('contentType', req.headers['content-type']),
        ...optional('accept', req.headers.accept),
        bodyLength: body.byteLength,
        status,
      });
      const data = payload === undefined ? undefined : Buffer.from(payload);
      res.writeHead(status, { ...headers, 'content-length': String(data?.byteLength ?? 0) });
      res.end(method === 'HEAD' ? undefined : data);
    };
    const error = (
      status: number,
      code: string,
      message: string,
      headers: Record<string, string> = {},
    ): void =>
      reply(
        status,
        { ...headers, 'content-type': 'application/json' },
        JSON.stringify({ errors: [{ code, message }] }),
      );

    if (url.pathname === '/token') {
      this.#token(req, url, body, reply);
      return;
    }
    if (fault !== undefined && fault.afterHandling !== true) {
      error(
        fault.status,
        'INJECTED',
        `injected ${fault.status}`,
        fault.retryAfter ? { 'retry-after': fault.retryAfter } : {},
      );
      return;
    }

    const upload = /^\/v2\/(.+)\/blobs\/uploads\/([^/]*)$/.exec(url.pathname);
    const content = /^\/v2\/(.+)\/(blobs|manifests)\/([^/]+)$/.exec(url.pathname);
    const repo = upload?.[1] ?? content?.[1] ?? '';
    const push = method === 'POST' || method === 'PATCH' || method === 'PUT';
    if (!this.#authorized(req, repo, push, error)) return;

    if (url.pathname === '/v2/' || url.pathname === '/v2') {
      reply(200, { 'content-type': 'application/json' }, '{}');
    } else if (upload !== undefined && upload !== null) {
      this.#upload(method, url, upload[1]!, upload[2]!, req.headers['content-range'], body, reply, error);
    } else if (content?.[2] === 'blobs') {
      const blob = this.blobs.get(content[3]!);
      if (blob === undefined || (method !== 'GET' && method !== 'HEAD')) {
        error(404, 'BLOB_UNKNOWN', 'blob unknown to registry');
        return;
      }
      if (this.blobRedirect !== undefined) {
        reply(307, { location: `${this.blobRedirect}/storage/${content[3]!}` });
        return;
      }
      reply(200, { 'content-type': 'application/octet-stream', 'docker-content-digest': content[3]! }, blob);
    } else if (content?.[2] === 'manifests') {
      this.#manifest(method, content[1]!, content[3]!, req, body, reply, error);
    } else {
      error(404, 'NOT_FOUND', 'not found');
    }
  }

  #upload(
    method: string,
    url: URL,
    repo: string,
    id: string,
    contentRangeHeader: string | undefined,
    body: Buffer,
    reply: (status: number, headers?: Record<string, string>, payload?: Buffer | string) => void,
    error: (status: number, code: string, message: string) => void,
  ): void {
    if (method === 'POST' && id === '') {
      const uuid = randomUUID();
      this.#uploads.set(uuid, { repo, data: Buffer.alloc(0) });
      const headers: Record<string, string> = {
        location:
          this.uploadOrigin === undefined
            ? `/v2/${repo}/blobs/uploads/${uuid}?_state=s0`
            : `${this.uploadOrigin}/upload/${uuid}`,
        'docker-upload-uuid': uuid,
        range: '0-0',
      };
      if (this.#options.chunkMinLength !== undefined) {
        headers['oci-chunk-min-length'] = String(this.#options.chunkMinLength);
      }
      reply(202, headers);
      return;
    }
    const state = this.#uploads.get(id);
    if (state === undefined || state.repo !== repo) {
      error(404, 'BLOB_UPLOAD_UNKNOWN', 'blob upload unknown');
      return;
    }
    const location = `/v2/${repo}/blobs/uploads/${id}?_state=s${state.data.byteLength}`;
    const range = state.data.byteLength === 0 ? '0-0' : `0-${state.data.byteLength - 1}`;
    if (method === 'GET') {
      reply(204, { location, range, 'docker-upload-uuid': id });
    } else if (method === 'PATCH') {
      const contentRange = /^(\d+)-(\d+)$/.exec(contentRangeHeader ?? '');
      if (contentRange !== null && Number(contentRange[1]) !== state.data.byteLength) {
        error(416, 'BLOB_UPLOAD_INVALID', 'range not satisfiable');
        return;
      }
      state.data = Buffer.concat([state.data, body]);
      const end = state.data.byteLength - 1;
      reply(202, { location: `/v2/${repo}/blobs/uploads/${id}?_state=s${end + 1}`, range: `0-${end}` });
    } else if (method === 'PUT') {
      const digest = url.searchParams.get('digest') ?? '';
      const data = Buffer.concat([state.data, body]);
      const actual = `sha256:${createHash('sha256').update(data).digest('hex')}`;
      if (actual !== digest) {
        error(400, 'DIGEST_INVALID', `provided digest did not match uploaded content (${actual})`);
        return;
      }
      this.#uploads.delete(id);
      this.blobs.set(digest, data);
      reply(201, { location: `/v2/${repo}/blobs/${digest}`, 'docker-content-digest': digest });
    } else {
      error(405, 'UNSUPPORTED', 'method not allowed');
    }
  }

  #manifest(
    method: string,
    repo: string,
    ref: string,
    req: http.IncomingMessage,
    body: Buffer,
    reply: (status: number, headers?: Record<string, string>, payload?: Buffer | string) => void,
    error: (status: number, code: string, message: string) => void,
  ): void {
    if (method === 'PUT') {
      const mediaType = req.headers['content-type'] ?? '';
      let doc: {
        config?: { digest?: string };
        layers?: Array<{ digest?: string }>;
        manifests?: Array<{ digest?: string }>;
      };
      try {
        doc = JSON.parse(body.toString('utf8')) as typeof doc;
      } catch {
        error(400, 'MANIFEST_INVALID', 'manifest invalid');
        return;
      }
      if (Array.isArray(doc.manifests)) {
        // An image index: like distribution, insist that the manifests it lists are already stored.
        for (const { digest } of doc.manifests) {
          if (digest === undefined || !this.manifests.has(`${repo}@${digest}`)) {
            error(400, 'MANIFEST_UNKNOWN', `manifest unknown to registry: ${digest}`);
            return;
          }
        }
      } else {
        for (const digest of [doc.config?.digest, ...(doc.layers ?? []).map((l) => l.digest)]) {
          if (digest === undefined || !this.blobs.has(digest)) {
            error(400, 'MANIFEST_BLOB_UNKNOWN', `blob unknown to registry: ${digest}`);
            return;
          }
        }
      }
      const digest = `sha256:${createHash('sha256').update(body).digest('hex')}`;
      this.manifests.set(`${repo}:${ref}`, { bytes: body, mediaType });
      this.manifests.set(`${repo}@${digest}`, { bytes: body, mediaType });
      reply(201, { location: `/v2/${repo}/manifests/${digest}`, 'docker-content-digest': digest });
      return;
    }
    const stored = this.manifests.get(ref.startsWith('sha256:') ? `${repo}@${ref}` : `${repo}:${ref}`);
    if (stored === undefined) {
      error(404, 'MANIFEST_UNKNOWN', 'manifest unknown');
      return;
    }
    const digest = `sha256:${createHash('sha256').update(stored.bytes).digest('hex')}`;
    reply(200, { 'content-type': stored.mediaType, 'docker-content-digest': digest }, stored.bytes);
  }

  #authorized(
    req: http.IncomingMessage,
    repo: string,
    push: boolean,
    error: (status: number, code: string, message: string, headers?: Record<string, string>) => void,
  ): boolean {
    const auth = this.#options.auth ?? { kind: 'none' };
    const given = req.headers.authorization ?? '';
    if (auth.kind === 'none') return true;
    if (auth.kind === 'basic') {
      const expected = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
      if (given === expected) return true;
      error(401, 'UNAUTHORIZED', 'authentication required', { 'www-authenticate': 'Basic realm="fake"' });
      return false;
    }
    const needed = repo === '' ? undefined : `repository:${repo}:${push ? 'pull,push' : 'pull'}`;
    const token = this.#tokens.get(given.replace(/^Bearer /, ''));
    const action = push ? 'push' : 'pull';
    const ok =
      given.startsWith('Bearer ') &&
      token !== undefined &&
      token.expiresAt > Date.now() &&
      (repo === '' ||
        token.scopes.some(
          (s) => s.startsWith(`repository:${repo}:`) && s.split(':')[2]!.split(',').includes(action),
        ));
    if (ok) return true;
    const challenge = `Bearer realm="${this.#origin}/token",service="fake-registry"${
      needed === undefined ? '' : `,scope="${needed}"`
    }`;
    error(401, 'UNAUTHORIZED', 'authentication required', { 'www-authenticate': challenge });
    return false;
  }

  #token(
    req: http.IncomingMessage,
    url: URL,
    body: Buffer,
    reply: (status: number, headers?: Record<string, string>, payload?: Buffer | string) => void,
  ): void {
    const auth = this.#options.auth;
    this.tokenRequests.push({
      query: url.searchParams,
      ...optional('authorization', req.headers.authorization),
    });
    if (auth?.kind !== 'bearer') {
      reply(404);
      return;
    }
    if (req.method === 'POST') {
      // OAuth2: a refresh token (docker's identity token) for an access token; scopes space-separated.
      const form = new URLSearchParams(body.toString('utf8'));
      if (
        auth.refreshToken === undefined ||
        form.get('grant_type') !== 'refresh_token' ||
        form.get('refresh_token') !== auth.refreshToken
      ) {
        reply(401, { 'content-type': 'application/json' }, '{"details":"invalid refresh token"}');
        return;
      }
      const token = `tok-${this.#tokens.size + 1}`;
      const expiresIn = auth.expiresIn ?? 300;
      this.#tokens.set(token, {
        scopes: (form.get('scope') ?? '').split(' ').filter((s) => s !== ''),
        expiresAt: Date.now() + expiresIn * 1000,
      });
      reply(
        200,
        { 'content-type': 'application/json' },
        JSON.stringify({ access_token: token, expires_in: expiresIn }),
      );
      return;
    }
    if (auth.username !== undefined) {
      const expected = `Basic ${Buffer.from(`${auth.username}:${auth.password ?? ''}`).toString('base64')}`;
      if (req.headers.authorization !== expected) {
        reply(401, { 'content-type': 'application/json' }, '{"details":"incorrect username or password"}');
        return;
      }
    }
    const token = `tok-${this.#tokens.size + 1}`;
    const expiresIn = auth.expiresIn ?? 300;
    this.#tokens.set(token, {
      scopes: url.searchParams.getAll('scope'),
      expiresAt: Date.now() + expiresIn * 1000,
    });
    reply(200, { 'content-type': 'application/json' }, JSON.stringify({ token, expires_in: expiresIn }));
  }
}

function optional<K extends string>(
  key: K,
  value: string | string[] | undefined,
): Partial<Record<K, string>> {
  if (value === undefined) return {};
  return { [key]: Array.isArray(value) ? value.join(', ') : value } as Partial<Record<K, string>>;
}
