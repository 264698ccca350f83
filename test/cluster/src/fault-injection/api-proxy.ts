import type { IncomingMessage, ServerResponse } from 'node:http';
import { Agent, createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { WatchHold, type WatchRelease, WatchStream } from './watch-hold.js';

/** One write the operator sent through the proxy, numbered from 1 since the proxy was last armed. */
export interface ProxiedWrite {
  readonly step: number;
  readonly method: string;
  readonly path: string;
  /** The API server's answer; 0 when its connection broke first (it restarted), so the outcome is unknown. */
  readonly status: number;
  readonly at: number;
  /**
   * The operator never got the answer: it had gone (it was killed) before the API server answered, which
   * applied the write all the same, or the connection to the API server broke. The armed hook did not run.
   */
  readonly unanswered: boolean;
  /** Why the connection to the API server broke, when it did (`ECONNREFUSED`, `ECONNRESET`, …). */
  readonly error?: string;
}

/**
 * What to do once write `step` has been answered by the API server, before the answer reaches the operator:
 * `deliver` passes it on, `drop` cuts the connection (the operator is being killed and never learns the outcome).
 */
export type AfterWrite = (write: ProxiedWrite) => Promise<'deliver' | 'drop'>;

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The API server's serving certificate: the proxy presents it, so the operator trusts it with the cluster's CA. */
export interface ServingCertificate {
  readonly cert: string;
  readonly key: string;
}

/**
 * An HTTPS proxy between an operator and the API server that sees every request: it numbers the operator's
 * writes (a write is one step of an operation), runs a hook after each, and can hold back the bytes of
 * every watch stream for a while (events then arrive late, in a burst or stream by stream in another order).
 * It terminates TLS with the API server's own serving certificate and forwards with the kubeconfig's
 * credentials.
 */
export class ApiProxy {
  readonly #server: Server;
  readonly #upstream: URL;
  readonly #kubeConfig: KubeConfig;
  #agent: Agent | undefined;
  #writes: ProxiedWrite[] = [];
  #afterWrite: AfterWrite | undefined;
  readonly #watches = new Set<WatchStream>();
  /** The hold in progress: watch streams opened meanwhile are held too. */
  #hold: WatchHold | undefined;

  private constructor(kubeConfig: KubeConfig, serving: ServingCertificate) {
    this.#kubeConfig = kubeConfig;
    const upstream = kubeConfig.getCurrentCluster()?.server;
    if (!upstream) throw new Error('the kubeconfig has no current cluster to proxy to');
    this.#upstream = new URL(upstream);
    this.#server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
      this.#forward(req, res).catch(() => res.destroy());
    });
  }

  /** Listens on a free loopback port. */
  static async start(kubeConfig: KubeConfig, serving: ServingCertificate): Promise<ApiProxy> {
    const proxy = new ApiProxy(kubeConfig, serving);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** `https://127.0.0.1:<port>`, for the operator's kubeconfig. */
  get url(): string {
    return `https://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** The writes since the proxy was last armed, in the order the API server answered them. */
  get writes(): readonly ProxiedWrite[] {
    return this.#writes;
  }

  /** Numbers writes from 1 again and runs `afterWrite` (if any) after each. */
  arm(afterWrite?: AfterWrite): void {
    this.#writes = [];
    this.#afterWrite = afterWrite;
  }

  /**
   * Holds every watch stream's bytes for `ms`, then delivers what arrived meanwhile: all streams at once, or
   * stream by stream in another order than their events came (see {@link WatchRelease}). Settles once every
   * stream is released.
   */
  async holdWatches(ms: number, release: WatchRelease = { order: 'together' }): Promise<void> {
    const hold = new WatchHold();
    this.#hold = hold;
    for (const watch of this.#watches) hold.add(watch);
    await new Promise((resolve) => setTimeout(resolve, ms));
    if (this.#hold === hold) this.#hold = undefined;
    await hold.release(release);
  }

  /** Cuts every open connection (a watch included): the operator sees the API server go away. */
  dropConnections(): void {
    this.#server.closeAllConnections();
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#agent?.destroy();
  }

  async #upstreamAgent(): Promise<Agent> {
    if (!this.#agent) {
      const opts: { ca?: Buffer | string; cert?: Buffer | string; key?: Buffer | string } = {};
      await this.#kubeConfig.applyToHTTPSOptions(opts);
      this.#agent = new Agent({ keepAlive: true, ca: opts.ca, cert: opts.cert, key: opts.key });
    }
    return this.#agent;
  }

  async #forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const agent = await this.#upstreamAgent();
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const isWatch = /[?&]watch=(true|1)/.test(path);
    const headers = { ...req.headers, host: this.#upstream.host };
    delete headers.authorization;
    const upstream = request({
      agent,
      hostname: this.#upstream.hostname,
      port: this.#upstream.port,
      method,
      path,
      headers,
    });
    req.pipe(upstream);
    // A write is recorded once, when its outcome is known or can no longer be.
    let recorded = false;
    const record = (status: number, unanswered: boolean, error?: Error): ProxiedWrite => {
      recorded = true;
      const write: ProxiedWrite = {
        step: this.#writes.length + 1,
        method,
        path,
        status,
        at: Date.now(),
        unanswered,
        ...(error && { error: (error as NodeJS.ErrnoException).code ?? error.message }),
      };
      this.#writes.push(write);
      return write;
    };
    // A write the operator sent whole may have been applied whatever happens next, so it is recorded even
    // when its answer is lost: a check that counts side effects must see it.
    const sentWhole = () => WRITES.has(method) && req.complete && !recorded;
    // The operator went away (or was killed): so does its request upstream, unless it is such a write. The
    // API server applies that one regardless, so it is left to finish.
    res.on('close', () => {
      if (res.writableFinished || sentWhole()) return;
      upstream.destroy();
    });
    upstream.on('error', (error) => {
      if (sentWhole()) record(0, true, error);
      res.destroy();
    });
    upstream.on('response', (answer) => {
      answer.on('error', () => res.destroy());
      // An API server going away ends its streams without a proper end: the operator must see a cut too.
      answer.on('aborted', () => {
        if (sentWhole()) record(answer.statusCode ?? 0, true);
        res.destroy();
      });
      if (WRITES.has(method)) this.#answerWrite(answer, res, record);
      else if (isWatch) this.#answerWatch(answer, res);
      else {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      }
    });
  }

  #answerWrite(
    answer: IncomingMessage,
    res: ServerResponse,
    record: (status: number, unanswered: boolean) => ProxiedWrite,
  ): void {
    const chunks: Buffer[] = [];
    answer.on('data', (chunk: Buffer) => chunks.push(chunk));
    answer.on('end', () => {
      const write = record(answer.statusCode ?? 0, res.destroyed);
      if (write.unanswered) return;
      const decide = this.#afterWrite?.(write) ?? Promise.resolve('deliver' as const);
      decide.then(
        (decision) => {
          if (decision === 'drop') {
            res.destroy();
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(chunks));
        },
        () => res.destroy(),
      );
    });
  }

  #answerWatch(answer: IncomingMessage, res: ServerResponse): void {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    // As the API server does: the client learns the watch is open before any event.
    res.flushHeaders();
    const watch = new WatchStream(res);
    this.#watches.add(watch);
    this.#hold?.add(watch);
    answer.on('data', (chunk: Buffer) => watch.send(chunk));
    answer.on('end', () => {
      this.#watches.delete(watch);
      watch.end();
    });
    res.on('close', () => {
      this.#watches.delete(watch);
      answer.destroy();
    });
  }
}
