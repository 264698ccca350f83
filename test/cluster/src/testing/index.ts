import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, inject } from 'vitest';
import { KubeApiError, KubeRest } from '../kube/rest.js';

export { KubeApiError, KubeRest } from '../kube/rest.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin kubeconfig of the cluster shared by this test run. */
    opkitKubeconfig: string;
    /** Second octet of the shared cluster's pod IPs (127.N.x.y); 0 for an existing cluster. */
    opkitPodSubnet: number;
  }
}

/** The shared test cluster's admin credentials (from the global setup or `OPKIT_TEST_KUBECONFIG`). */
export function testKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(inject('opkitKubeconfig'));
  return kc;
}

export interface TestNamespace {
  /** Name of the namespace of the current test. */
  readonly name: string;
}

/**
 * A fresh namespace for every test, deleted after it (with everything in it). Pass labels, e.g. Pod
 * Security's `pod-security.kubernetes.io/enforce: restricted`.
 */
export function useTestNamespace(
  options: { prefix?: string; labels?: Record<string, string> } = {},
): TestNamespace {
  const state = { name: '' };
  let rest: KubeRest | undefined;
  beforeEach(async () => {
    rest ??= new KubeRest(testKubeConfig());
    state.name = `${options.prefix ?? 'test'}-${randomBytes(4).toString('hex')}`;
    await rest.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: state.name, labels: options.labels } },
    });
    // Pods need the namespace's default ServiceAccount, which the controller-manager creates.
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await rest.request('GET', `/api/v1/namespaces/${state.name}/serviceaccounts/default`);
        break;
      } catch (error) {
        if (!(error instanceof KubeApiError && error.status === 404) || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });
  afterEach(async () => {
    if (!rest || !state.name) return;
    await rest.request('DELETE', `/api/v1/namespaces/${state.name}`).catch(() => {});
  });
  return state;
}

/** Polls until `check` returns a value other than undefined/false, or fails with `what` after the timeout. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  { timeoutMs = 30_000, intervalMs = 200 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Host processes serving a pod IP (process-backed pods), found through /proc: pid and argv. */
export function processesOnPodIP(ip: string): { pid: number; argv: string[] }[] {
  const found: { pid: number; argv: string[] }[] = [];
  const pattern = new RegExp(`(^|[^\\d.])${ip.replaceAll('.', '\\.')}($|[^\\d.])`);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      // redis-server rewrites its title to `redis-server 127.x.y.z:6379`, so match the address inside arguments.
      if (argv[0] !== 'setpriv' && argv.some((arg) => pattern.test(arg)))
        found.push({ pid: Number(entry), argv });
    } catch {
      // the process ended meanwhile
    }
  }
  return found;
}
