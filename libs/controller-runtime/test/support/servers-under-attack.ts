// The runtime's servers in a process of their own, so that what hostile clients cost them can be measured apart
// from the clients: the webhook server (HTTPS), the probe server (HTTP) and the metrics server (HTTPS). Started
// with `--expose-gc` and an IPC channel by a parent, which sends `{ start: limits }` and gets the ports back, then
// `{ measure: true }` and gets the memory (after a full collection) and open sockets, now and at their peak since
// the previous measure (sampled every 20 ms).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { ProbeServer } from '../../src/internal/healthz/probe-server.js';
import type { ServerLimits } from '../../src/serving/bounded-server.js';
import { selfSignedCertificate } from '../../src/serving/certificates.js';
import { WebhookServer } from '../../src/webhook/server.js';

export interface Ports {
  readonly webhook: number;
  readonly probe: number;
  readonly metrics: number;
}

export interface Measure {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  /** What the JavaScript heap holds from the system, its young generation included. */
  readonly heapTotalBytes: number;
  /** Open TCP connections of the servers (listening sockets and the IPC channel are not counted). */
  readonly sockets: number;
  readonly peakRssBytes: number;
  readonly peakSockets: number;
}

export type Request = { readonly start: Partial<ServerLimits> } | { readonly measure: true };

const openSockets = (): number =>
  process.getActiveResourcesInfo().filter((resource) => resource === 'TCPSocketWrap').length;

let peakRss = 0;
let peakSockets = 0;
const sample = (): void => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  peakSockets = Math.max(peakSockets, openSockets());
};

const stop = new AbortController();
const certDir = mkdtempSync(join(tmpdir(), 'servers-under-attack-'));

async function start(limits: Partial<ServerLimits>): Promise<Ports> {
  const pair = selfSignedCertificate({ commonName: 'attacked', hosts: ['127.0.0.1'] });
  writeFileSync(join(certDir, 'tls.crt'), pair.cert);
  writeFileSync(join(certDir, 'tls.key'), pair.key);
  const webhook = new WebhookServer({ host: '127.0.0.1', port: 0, certPath: certDir, limits });
  webhook.register('/validate', async (review) => ({ kind: 'AdmissionReview', echoed: review }));
  void webhook.start(stop.signal);
  const probe = new ProbeServer({ healthz: new Map([['ping', () => {}]]), limits });
  const registry = new Registry();
  const metrics = new ProbeServer({ registry, tls: pair, limits });
  const [probeAddress, metricsAddress] = await Promise.all([
    probe.listen({ host: '127.0.0.1', port: 0 }),
    metrics.listen({ host: '127.0.0.1', port: 0 }),
  ]);
  while (!webhook.address) await new Promise((resolve) => setTimeout(resolve, 10));
  return { webhook: webhook.address.port, probe: probeAddress.port, metrics: metricsAddress.port };
}

function measure(): Measure {
  sample();
  globalThis.gc?.();
  const memory = process.memoryUsage();
  const result = {
    rssBytes: memory.rss,
    heapUsedBytes: memory.heapUsed,
    heapTotalBytes: memory.heapTotal,
    sockets: openSockets(),
    peakRssBytes: peakRss,
    peakSockets,
  };
  peakRss = 0;
  peakSockets = 0;
  return result;
}

setInterval(sample, 20);
process.on('message', (request: Request) => {
  if ('start' in request) {
    start(request.start).then(
      (ports) => process.send?.({ ports }),
      (error: unknown) => process.send?.({ error: String(error) }),
    );
  } else {
    process.send?.({ measure: measure() });
  }
});
process.on('disconnect', () => {
  stop.abort();
  rmSync(certDir, { recursive: true, force: true });
  process.exit(0);
});
