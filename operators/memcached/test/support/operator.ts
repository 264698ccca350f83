import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, ignoreNotFound, type KubeObject, type Manager } from '@opkit/controller-runtime';
import { selfSignedCertificate } from '@opkit/controller-runtime/certs';
import { withConversionWebhook } from '@opkit/controller-runtime/crd';
import { RuntimeMetrics } from '@opkit/controller-runtime/metrics';
import { webhookConfigurations } from '@opkit/controller-runtime/webhook';
import { KubeRest, removeCrds, testKubeConfig } from '@opkit/test-cluster/vitest';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type Memcached, memcachedCrd, memcachedWebhooks } from '../../src/index.js';
import { createMemcachedOperator } from '../../src/operator.js';

export const MEMCACHED_IMAGE = 'docker.io/library/memcached:1.6';

const MEMCACHED_TYPE = { apiVersion: 'cache.example.com/v1beta1', kind: 'Memcached' } as const;

/** A free loopback port for the webhook server, the same for every test of the file. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * The API server calls the operator's webhooks in this process: the CRD's conversion and the webhook
 * configurations point at a loopback URL with a self-signed certificate, where in a cluster they name the
 * operator's Service.
 */
async function installApi(webhook: { port: number; certDir: string }): Promise<void> {
  const serving = selfSignedCertificate({ commonName: 'memcached-webhook', hosts: ['127.0.0.1'] });
  writeFileSync(join(webhook.certDir, 'tls.crt'), serving.cert);
  writeFileSync(join(webhook.certDir, 'tls.key'), serving.key);
  const caBundle = Buffer.from(serving.cert).toString('base64');
  const clientConfig = (path: string) => ({ url: `https://127.0.0.1:${webhook.port}${path}`, caBundle });
  const installer = createMemcachedOperator({ kubeConfig: testKubeConfig(), namespaces: ['default'] });
  // A fresh start: a deployed operator may have left the CRD calling its Service instead.
  await removeApi(installer);
  const { mutating, validating } = webhookConfigurations([memcachedWebhooks], clientConfig);
  for (const obj of [withConversionWebhook(memcachedCrd, clientConfig('/convert')), mutating, validating]) {
    if (obj) await installer.apiReader.create(obj);
  }
  for (let i = 0; i < 100; i++) {
    try {
      await installer.apiReader.list(MEMCACHED_TYPE, { limit: 1 });
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await installer.transport.close();
}

/**
 * Deletes the webhook configurations, then the CRD and with it every Memcached (finalizers left by a stopped
 * operator are dropped first), and waits until the CRD is gone: nothing may be left calling a webhook this
 * process no longer serves.
 */
async function removeApi(client: Manager): Promise<void> {
  const { mutating, validating } = webhookConfigurations([memcachedWebhooks]);
  // The webhook configurations first: dropping finalizers is an update they would send to a closed port.
  for (const c of [mutating, validating]) {
    if (c)
      await ignoreNotFound(
        client.apiReader.delete({ apiVersion: c.apiVersion, kind: c.kind, name: c.metadata.name ?? '' }),
      );
  }
  await removeCrds(new KubeRest(testKubeConfig()), [memcachedCrd]);
}

/**
 * Runs the operator in this process for each test, watching only the test's namespace, with its webhooks on
 * one loopback port the API server is configured to call.
 */
export function useOperator(namespace: () => string): { manager: () => Manager } {
  let manager: Manager | undefined;
  let stop: AbortController | undefined;
  let running: Promise<void> | undefined;
  const webhook = { port: 0, certDir: mkdtempSync(join(tmpdir(), 'memcached-webhook-')) };
  beforeAll(async () => {
    webhook.port = await freePort();
    await installApi(webhook);
  });
  afterAll(async () => {
    const remover = createMemcachedOperator({ kubeConfig: testKubeConfig(), namespaces: ['default'] });
    await removeApi(remover);
    await remover.transport.close();
  });
  beforeEach(async () => {
    manager = createMemcachedOperator({
      kubeConfig: testKubeConfig(),
      namespaces: [namespace()],
      namespace: namespace(),
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '127.0.0.1:0',
      env: { RELATED_IMAGE_MEMCACHED: MEMCACHED_IMAGE },
      logger: createLogger({ level: process.env.OPKIT_TEST_VERBOSE ? 'debug' : 'error' }),
      managerOptions: {
        metrics: new RuntimeMetrics(),
        webhook: { host: '127.0.0.1', port: webhook.port, certDir: webhook.certDir },
      },
    });
    stop = new AbortController();
    running = manager.start(stop.signal);
    await manager.elected;
    const server = manager.webhookServer;
    for (let i = 0; i < 100 && !server.address; i++) await new Promise((r) => setTimeout(r, 20));
  });
  afterEach(async () => {
    stop?.abort();
    await running;
  });
  return { manager: () => manager! };
}

export function memcached(name: string, namespace: string, spec: Partial<Memcached['spec']> = {}): Memcached {
  return {
    apiVersion: 'cache.example.com/v1beta1',
    kind: 'Memcached',
    metadata: { name, namespace },
    spec: { replicas: 1, ...spec },
  };
}

/** Speaks the memcached text protocol: sends the lines, resolves with everything answered until `until`. */
export function memcachedTalk(address: string, lines: string[], until: RegExp): Promise<string> {
  const [host, port] = address.split(':') as [string, string];
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let answer = '';
    socket.setTimeout(3000, () => socket.destroy(new Error(`no answer from ${address}`)));
    socket.once('error', reject);
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (until.test(answer)) {
        socket.destroy();
        resolve(answer);
      }
    });
    socket.connect(Number(port), host, () => socket.write(lines.map((l) => `${l}\r\n`).join('')));
  });
}

export type Deployment = KubeObject & {
  spec: { replicas: number; template: { spec: { containers: { image: string; args: string[] }[] } } };
  status?: { readyReplicas?: number };
};
