import type { IncomingMessage, Server } from 'node:http';
import type { Server as SecureServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { RequestFilter } from '../../metrics/auth-filter.js';
import { createBoundedServer, type Reply, type ServerLimits } from '../../serving/bounded-server.js';
import type { CertificateAndKey } from '../../serving/certificates.js';
import { requestTarget } from './request-target.js';

/** A health check: resolves when healthy, throws (with the reason) when not. */
export type Checker = () => Promise<void> | void;

/** `:8081` → all interfaces; `127.0.0.1:0` → loopback, any free port; `0` or empty → disabled. */
export function parseBindAddress(
  address: string | undefined,
): { host: string | undefined; port: number } | undefined {
  if (!address || address === '0') return undefined;
  const colon = address.lastIndexOf(':');
  const host = colon > 0 ? address.slice(0, colon).replace(/^\[|\]$/g, '') : undefined;
  const port = Number(address.slice(colon + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`invalid bind address "${address}": expected [host]:port`);
  }
  return { host, port };
}

const TEXT = 'text/plain; charset=utf-8';

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The HTTP endpoints of a manager: `/healthz` and `/readyz` (each check also at `/healthz/<name>`;
 * `?verbose` lists them) and/or `/metrics`, as controller-runtime serves them.
 */
export class ProbeServer {
  readonly #server: Server;
  readonly #healthz: Map<string, Checker>;
  readonly #readyz: Map<string, Checker>;
  readonly #registry: Registry | undefined;

  constructor(options: {
    healthz?: Map<string, Checker>;
    readyz?: Map<string, Checker>;
    registry?: Registry;
    /** Serve HTTPS (TLS 1.2 or later) with this certificate and key instead of plain HTTP. */
    tls?: CertificateAndKey;
    /** Runs before every request; a refusal is answered as is (authentication and authorization). */
    filter?: RequestFilter;
    /** Connection and handler limits. @default DEFAULT_SERVER_LIMITS */
    limits?: Partial<ServerLimits>;
  }) {
    this.#healthz = options.healthz ?? new Map();
    this.#readyz = options.readyz ?? new Map();
    this.#registry = options.registry;
    const filter = options.filter;
    // Whatever a request holds, it gets an answer and the process goes on: every failure of a handler,
    // a check or the metrics registry becomes a 500 (createBoundedServer's), a request target that is no path a
    // 400. The target is made canonical before the filter runs, and the filter is asked about the very path that
    // is routed.
    const handle = async (req: IncomingMessage): Promise<Reply> => {
      const target = requestTarget(req.url ?? '/');
      if (target.kind === 'refuse') {
        return { status: 400, body: `bad request target: ${target.reason}\n`, type: TEXT };
      }
      if (target.kind === 'redirect') {
        return {
          status: 301,
          body: `moved to ${target.location}\n`,
          type: TEXT,
          headers: { location: target.location },
        };
      }
      const refusal = await filter?.({
        method: req.method ?? 'GET',
        path: target.path,
        headers: req.headers,
      });
      if (refusal) return { status: refusal.status, body: `${refusal.reason}\n`, type: TEXT };
      return this.#handle(target.path, target.query);
    };
    this.#server = createBoundedServer({ tls: options.tls, limits: options.limits, handle });
  }

  async #handle(pathname: string, searchParams: URLSearchParams): Promise<Reply> {
    if (pathname === '/metrics' && this.#registry) {
      return { status: 200, body: await this.#registry.metrics(), type: this.#registry.contentType };
    }
    const [, group, only] = pathname.split('/');
    const checks = group === 'healthz' ? this.#healthz : group === 'readyz' ? this.#readyz : undefined;
    if (!checks) {
      return { status: 404, body: 'not found\n', type: TEXT };
    }
    const excluded = new Set(searchParams.getAll('exclude'));
    const lines: string[] = [];
    let healthy = true;
    for (const [name, check] of checks) {
      if (excluded.has(name) || (only && only !== name)) continue;
      try {
        await check();
        lines.push(`[+]${name} ok`);
      } catch (error) {
        healthy = false;
        lines.push(`[-]${name} failed: ${errorMessage(error)}`);
      }
    }
    if (only && lines.length === 0) return { status: 404, body: `no check named ${only}\n`, type: TEXT };
    const verbose = searchParams.has('verbose') || !healthy;
    const body = verbose ? `${lines.join('\n')}\n${group} check ${healthy ? 'passed' : 'failed'}\n` : 'ok';
    return { status: healthy ? 200 : 500, body, type: TEXT };
  }

  /** Serves new connections with this certificate (a renewed one); only for a server created with `tls`. */
  setCertificate(pair: CertificateAndKey): void {
    const server = this.#server as Partial<Pick<SecureServer, 'setSecureContext'>>;
    if (!server.setSecureContext)
      throw new Error('ProbeServer.setCertificate: the server was created without tls');
    server.setSecureContext({ ...pair, minVersion: 'TLSv1.2' });
  }

  /** Listens; resolves with the bound address (useful with port 0). */
  listen(bind: { host: string | undefined; port: number }): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(bind.port, bind.host, () => resolve(this.#server.address() as AddressInfo));
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}
