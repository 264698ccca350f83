import { Socket } from 'node:net';
import { createLogger, type KubeObject, type Manager } from '@opkit/controller-runtime';
import { RuntimeMetrics } from '@opkit/controller-runtime/metrics';
import { selfSignedCertificate } from '@opkit/controller-runtime/serving';
import { CONVERSION_PATH } from '@opkit/controller-runtime/webhook';
import { withConversionWebhook } from '@opkit/controller-tools/crd';
import { webhookConfigurations } from '@opkit/controller-tools/webhook';
import { testKubeConfig, type WebhookOperatorOptions } from '@opkit/test-cluster/vitest';
import { type Memcached, memcachedCrd, webhooks } from '../../src/index.js';
import { createMemcachedOperator } from '../../src/operator.js';

export const MEMCACHED_IMAGE = 'docker.io/library/memcached:1.6';

/**
 * The Memcached operator for the kit's `useOperator`: its webhooks served in this process, the CRD's
 * conversion and the webhook configurations calling them there; each test's manager watches only the test's
 * namespace.
 */
export const memcachedOperator = {
  webhookServer: { certificate: selfSignedCertificate },
  crds: ({ clientConfig }) => [withConversionWebhook(memcachedCrd, clientConfig(CONVERSION_PATH))],
  webhookConfigurations: ({ clientConfig }) => Object.values(webhookConfigurations(webhooks, clientConfig)),
  create: (namespace, { webhookServer, verbose }) =>
    createMemcachedOperator({
      kubeConfig: testKubeConfig(),
      namespaces: [namespace],
      namespace,
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '127.0.0.1:0',
      env: { RELATED_IMAGE_MEMCACHED: MEMCACHED_IMAGE },
      logger: createLogger({ level: verbose ? 'debug' : 'error' }),
      managerOptions: { metrics: new RuntimeMetrics(), webhook: webhookServer },
    }),
} satisfies Omit<WebhookOperatorOptions<Manager>, 'namespace'>;

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
