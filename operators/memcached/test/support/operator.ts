import { Socket } from 'node:net';
import { createLogger, type KubeObject, type Manager, RuntimeMetrics } from '@opkit/controller-runtime';
import { testKubeConfig } from '@opkit/test-cluster/vitest';
import { afterEach, beforeAll, beforeEach } from 'vitest';
import { type Memcached, memcachedCrd } from '../../src/index.js';
import { createMemcachedOperator } from '../../src/operator.js';

export const MEMCACHED_IMAGE = 'docker.io/library/memcached:1.6';

/** Runs the operator in this process for each test, watching only the test's namespace. */
export function useOperator(namespace: () => string): { manager: () => Manager } {
  let manager: Manager | undefined;
  let stop: AbortController | undefined;
  let running: Promise<void> | undefined;
  beforeAll(async () => {
    const installer = createMemcachedOperator({ kubeConfig: testKubeConfig(), namespaces: ['default'] });
    await installer.apiReader.apply(memcachedCrd, { fieldManager: 'memcached-test' });
    for (let i = 0; i < 100; i++) {
      try {
        await installer.apiReader.list(
          { apiVersion: 'cache.example.com/v1alpha1', kind: 'Memcached' },
          { limit: 1 },
        );
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await installer.transport.close();
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
      managerOptions: { metrics: new RuntimeMetrics() },
    });
    stop = new AbortController();
    running = manager.start(stop.signal);
    await manager.elected;
  });
  afterEach(async () => {
    stop?.abort();
    await running;
  });
  return { manager: () => manager! };
}

export function memcached(name: string, namespace: string, spec: Partial<Memcached['spec']> = {}): Memcached {
  return {
    apiVersion: 'cache.example.com/v1alpha1',
    kind: 'Memcached',
    metadata: { name, namespace },
    spec: { size: 1, ...spec },
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
