import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { loadKubeConfig } from '../internal/transport/kubeconfig.js';
import { createLogger } from '../log/index.js';
import { RuntimeMetrics } from '../metrics/runtime-metrics.js';
import { selfSignedCertificate } from '../serving/certificates.js';
import { Manager } from './manager.js';

// A renewed metrics certificate (cert-manager, a rotated Secret) is served without a restart, as the webhook's is.

const dir = mkdtempSync(join(tmpdir(), 'opkit-metrics-cert-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Nothing in this test talks to the API server; the manager only needs somewhere to point.
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(
  kubeconfig,
  `current-context: x
contexts: [{name: x, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]
users: [{name: u, user: {token: t}}]
`,
);

const certDir = join(dir, 'certs');
mkdirSync(certDir);

/** Writes a new pair in place, as cert-manager's renewal or a rotated Secret leaves it. */
function writeCertificate(commonName: string): void {
  const { cert, key } = selfSignedCertificate({ commonName, hosts: ['127.0.0.1'] });
  writeFileSync(join(certDir, 'tls.key'), key);
  writeFileSync(join(certDir, 'tls.crt'), cert);
}

/** The common name of the certificate a new TLS connection is served with. */
function servedName(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const subject = socket.getPeerX509Certificate()?.subject ?? '';
      socket.end();
      resolve(/CN=(.*)/.exec(subject)?.[1] ?? '');
    });
    socket.on('error', reject);
  });
}

describe('Manager secure metrics', () => {
  it('serves a certificate from metricsCertPath and the renewed one once its files change', async () => {
    writeCertificate('first');
    const manager = new Manager({
      kubeConfig: loadKubeConfig(kubeconfig),
      logger: createLogger({ level: 'error' }),
      metrics: new RuntimeMetrics(),
      metricsBindAddress: '127.0.0.1:0',
      metricsSecure: true,
      metricsCertPath: certDir,
    });
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    try {
      await manager.elected;
      const port = manager.metricsAddress?.port ?? 0;
      expect(await servedName(port)).toBe('first');
      writeCertificate('second');
      // File events usually report the change at once; the watcher also reads the files every 10 s.
      const deadline = Date.now() + 15_000;
      let name = await servedName(port);
      while (name !== 'second' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        name = await servedName(port);
      }
      expect(name).toBe('second');
    } finally {
      stop.abort();
      await running;
    }
  }, 30_000);
});
