// A loopback HTTPS proxy in front of a real API server that can play one that is not ready yet: while a fault is
// set it answers every request with that fault (an HTTP status with a Status body, or a reset connection), and
// queued faults answer one request each; otherwise it forwards, watches included, with the upstream's
// credentials.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type RequestOptions, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ClusterConnection } from '../../src/internal/transport/kubeconfig.js';
import { type CertificateAndKey, selfSignedCertificate } from '../../src/serving/certificates.js';

/** What the proxy answers instead of forwarding: a status (503, 429, 403, …) or a connection reset. */
export type ProxyFault =
  | { readonly status: number; readonly reason: string; readonly message: string }
  | 'reset';

/** kube-apiserver's answer before all of its HTTP paths are installed. */
export const NOT_READY: ProxyFault = {
  status: 503,
  reason: 'ServiceUnavailable',
  message: 'the server is currently unable to handle the request',
};

/** What an API server under load answers when priority and fairness sheds a request. */
export const TOO_MANY_REQUESTS: ProxyFault = {
  status: 429,
  reason: 'TooManyRequests',
  message: 'too many requests, please try again later',
};

export class UnreadyApiProxy {
  /** The fault answered to every request while set. */
  fault: ProxyFault | undefined;
  /** Faults answered one per request, in order, while no `fault` is set. */
  faults: ProxyFault[] = [];
  /** Requests answered with a fault, by path (query included). */
  readonly faulted: string[] = [];
  readonly #server: Server;
  readonly #upstream: ClusterConnection;
  readonly #certificate: CertificateAndKey;

  private constructor(upstream: ClusterConnection, fault: ProxyFault | undefined) {
    this.#upstream = upstream;
    this.fault = fault;
    this.#certificate = selfSignedCertificate({ commonName: 'unready-api-proxy', hosts: ['127.0.0.1'] });
    this.#server = createServer(this.#certificate, (req, res) => {
      this.#answer(req, res).catch(() => res.destroy());
    });
    this.#server.maxConnections = 64;
  }

  /** Listens on a free loopback port, answering `fault` from the first request on. */
  static async start(upstream: ClusterConnection, fault?: ProxyFault): Promise<UnreadyApiProxy> {
    const proxy = new UnreadyApiProxy(upstream, fault);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** A connection to the API server through this proxy, for a manager's `kubeConfig`. */
  get connection(): ClusterConnection {
    const { port } = this.#server.address() as AddressInfo;
    const ca = this.#certificate.cert;
    return {
      getCurrentCluster: () => ({ server: `https://127.0.0.1:${port}` }),
      applyToHTTPSOptions: async (options: RequestOptions) => {
        options.ca = ca;
      },
    };
  }

  async #answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const fault = this.fault ?? this.faults.shift();
    if (fault) {
      this.faulted.push(req.url ?? '');
      if (fault === 'reset') {
        req.socket.destroy();
        return;
      }
      const { status, reason, message } = fault;
      const body = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: status, reason, message };
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return;
    }
    const server = this.#upstream.getCurrentCluster()?.server;
    if (!server) throw new Error('the upstream has no server');
    const target = new URL(server);
    const credentials: RequestOptions = {};
    await this.#upstream.applyToHTTPSOptions(credentials);
    const headers = { ...req.headers, ...(credentials.headers ?? {}) };
    delete headers.host;
    const upstream = request(
      {
        ...credentials,
        headers,
        hostname: target.hostname,
        port: target.port || 443,
        method: req.method,
        path: req.url,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
