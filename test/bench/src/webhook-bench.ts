import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { KubeObject } from '@opkit/controller-runtime';
import { selfSignedCertificate } from '@opkit/controller-runtime/serving';
import { defaultingHandler, WebhookServer } from '@opkit/controller-runtime/webhook';

export interface WebhookRun {
  readonly requests: number;
  readonly concurrency: number;
  readonly elapsedMs: number;
  readonly requestsPerSecond: number;
  /** Latency of one request, from writing it to reading the whole answer, in microseconds. */
  readonly p50Micros: number;
  readonly p99Micros: number;
}

const PATH = '/mutate-cache-example-com-v1alpha1-memcached';

/** A CREATE review of a Memcached as the API server sends one (about 1.5 KiB of JSON). */
function review(uid: number): string {
  const object: KubeObject & { spec: Record<string, unknown> } = {
    apiVersion: 'cache.example.com/v1alpha1',
    kind: 'Memcached',
    metadata: {
      name: `bench-${uid}`,
      namespace: 'bench',
      labels: { 'app.kubernetes.io/name': 'memcached', 'app.kubernetes.io/part-of': 'bench' },
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': 'x'.repeat(600) },
    },
    spec: { containerPort: 11211, resources: { requests: { cpu: '10m', memory: '64Mi' } } },
  };
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `00000000-0000-0000-0000-${String(uid).padStart(12, '0')}`,
      kind: { group: 'cache.example.com', version: 'v1alpha1', kind: 'Memcached' },
      resource: { group: 'cache.example.com', version: 'v1alpha1', resource: 'memcacheds' },
      operation: 'CREATE',
      userInfo: { username: 'bench', groups: ['system:authenticated'] },
      object,
    },
  });
}

function post(agent: Agent, port: number, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: '127.0.0.1',
        port,
        path: PATH,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.once('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`webhook answered ${res.statusCode}`)),
        );
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

/** The server's address once it listens; what stopped it when it ends (start() failed) before that. */
export async function listeningAddress(
  server: Pick<WebhookServer, 'address'>,
  serving: Promise<void>,
): Promise<AddressInfo> {
  let ended: { readonly error?: unknown } | undefined;
  serving.then(
    () => {
      ended = {};
    },
    (error: unknown) => {
      ended = { error };
    },
  );
  for (;;) {
    if (server.address !== undefined) return server.address;
    if (ended) throw ended.error ?? new Error('the webhook server stopped before it listened');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
/**
 * Admission requests against the runtime's webhook server over HTTPS with kept-alive connections, as the API
 * server sends them: a defaulting handler that sets one field, `concurrency` requests at a time.
 */
export async function webhookRun(options: {
  readonly requests: number;
  readonly concurrency: number;
}): Promise<WebhookRun> {
  const dir = mkdtempSync(join(tmpdir(), 'opkit-bench-webhook-'));
  const pair = selfSignedCertificate({ commonName: 'bench', hosts: ['127.0.0.1'] });
  writeFileSync(join(dir, 'tls.crt'), pair.cert);
  writeFileSync(join(dir, 'tls.key'), pair.key);
  const server = new WebhookServer({ host: '127.0.0.1', port: 0, certPath: dir });
  server.register(
    PATH,
    defaultingHandler<KubeObject & { spec: { size?: number } }>((obj) => {
      obj.spec.size ??= 1;
    }),
  );
  const stop = new AbortController();
  const serving = server.start(stop.signal);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency, ca: pair.cert });
  try {
    const { port } = await listeningAddress(server, serving);
    const bodies = Array.from({ length: options.concurrency }, (_, i) => review(i));
    const latencies: number[] = [];
    let next = 0;
    const worker = async (slot: number): Promise<void> => {
      while (next < options.requests) {
        next++;
        const sent = performance.now();
        await post(agent, port, bodies[slot] as string);
        latencies.push((performance.now() - sent) * 1000);
      }
    };
    // Connections and the JIT warm up before the clock starts.
    for (let i = 0; i < 200; i++) await post(agent, port, bodies[0] as string);
    const started = performance.now();
    await Promise.all(Array.from({ length: options.concurrency }, (_, slot) => worker(slot)));
    const elapsedMs = performance.now() - started;
    latencies.sort((a, b) => a - b);
    const at = (q: number): number =>
      latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
    return {
      requests: latencies.length,
      concurrency: options.concurrency,
      elapsedMs,
      requestsPerSecond: latencies.length / (elapsedMs / 1000),
      p50Micros: at(0.5),
      p99Micros: at(0.99),
    };
  } finally {
    agent.destroy();
    stop.abort();
    await serving;
    rmSync(dir, { recursive: true, force: true });
  }
}
