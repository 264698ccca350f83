import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

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
  }) {
    this.#healthz = options.healthz ?? new Map();
    this.#readyz = options.readyz ?? new Map();
    this.#registry = options.registry;
    this.#server = createServer((req, res) => {
      void this.#handle(req.url ?? '/').then(({ status, body, type }) => {
        res.writeHead(status, { 'content-type': type });
        res.end(body);
      });
    });
  }

  async #handle(url: string): Promise<{ status: number; body: string; type: string }> {
    const { pathname, searchParams } = new URL(url, 'http://localhost');
    const text = 'text/plain; charset=utf-8';
    if (pathname === '/metrics' && this.#registry) {
      return { status: 200, body: await this.#registry.metrics(), type: this.#registry.contentType };
    }
    const [, group, only] = pathname.split('/');
    const checks = group === 'healthz' ? this.#healthz : group === 'readyz' ? this.#readyz : undefined;
    if (!checks) {
      return { status: 404, body: 'not found\n', type: text };
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
        lines.push(`[-]${name} failed: ${(error as Error).message}`);
      }
    }
    if (only && lines.length === 0) return { status: 404, body: `no check named ${only}\n`, type: text };
    const verbose = searchParams.has('verbose') || !healthy;
    const body = verbose ? `${lines.join('\n')}\n${group} check ${healthy ? 'passed' : 'failed'}\n` : 'ok';
    return { status: healthy ? 200 : 500, body, type: text };
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
