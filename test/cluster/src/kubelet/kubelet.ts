import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { V1ConfigMap, V1Pod, V1Secret } from '@kubernetes/client-node';
import { listWatch } from '../kube/list-watch.js';
import { KubeApiError, type KubeRest } from '../kube/rest.js';
import type { KeyReader } from './environment.js';
import type { PodIpPool } from './pod-ips.js';
import { PodRunner } from './pod-runner.js';

export interface ProcessKubeletOptions {
  readonly rest: KubeRest;
  /** Pods' working directories, volumes and logs live under here. */
  readonly dir: string;
  readonly pool: PodIpPool;
  /** @default 1000 */
  readonly restartBackoffMs?: number;
  /** @default 20000 */
  readonly maxRestartBackoffMs?: number;
  readonly log: (message: string) => void;
}

/**
 * The node agent of the local control plane. kwok keeps the fake nodes Ready; this agent runs every pod the
 * scheduler binds to them: it gives each a loopback pod IP, runs memcached/redis containers as real
 * processes, reports status as a kubelet would and finishes graceful deletion.
 */
export class ProcessKubelet {
  readonly #options: ProcessKubeletOptions;
  readonly #runners = new Map<string, PodRunner>();
  readonly #names = new Map<string, string>();
  readonly #abort = new AbortController();
  #loop: Promise<void> | undefined;

  constructor(options: ProcessKubeletOptions) {
    this.#options = options;
  }

  start(): void {
    this.#loop = listWatch<V1Pod>(
      this.#options.rest,
      '/api/v1/pods',
      { fieldSelector: 'spec.nodeName!=' },
      {
        sync: (pods) => {
          const seen = new Set(pods.map((p) => p.metadata!.uid!));
          for (const uid of [...this.#runners.keys()]) if (!seen.has(uid)) void this.#forget(uid);
          for (const pod of pods) this.#observe(pod);
        },
        added: (pod) => this.#observe(pod),
        modified: (pod) => this.#observe(pod),
        deleted: (pod) => void this.#forget(pod.metadata!.uid!),
      },
      this.#abort.signal,
    );
  }

  /** The running pod's process id, for tests that kill it to simulate a crash. */
  pidOf(namespace: string, name: string, container?: string): number | undefined {
    const uid = this.#names.get(`${namespace}/${name}`);
    return uid ? this.#runners.get(uid)?.pidOf(container) : undefined;
  }

  readonly #deleting = new Set<string>();

  /** ConfigMap/Secret data; read once per pod start, so plain GETs are enough. */
  async #readKeys(
    kind: 'ConfigMap' | 'Secret',
    namespace: string,
    name: string,
  ): Promise<Record<string, string> | undefined> {
    try {
      if (kind === 'ConfigMap') {
        const cm = await this.#options.rest.request<V1ConfigMap>(
          'GET',
          `/api/v1/namespaces/${namespace}/configmaps/${name}`,
        );
        return { ...(cm.data ?? {}) };
      }
      const secret = await this.#options.rest.request<V1Secret>(
        'GET',
        `/api/v1/namespaces/${namespace}/secrets/${name}`,
      );
      return Object.fromEntries(
        Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
      );
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  #observe(pod: V1Pod): void {
    const uid = pod.metadata!.uid!;
    const { namespace, name } = pod.metadata!;
    let runner = this.#runners.get(uid);
    if (pod.metadata?.deletionTimestamp) {
      if (!this.#deleting.has(uid)) {
        this.#deleting.add(uid);
        void this.#finishDeletion(pod, runner);
      }
      return;
    }
    if (runner) {
      runner.update(pod);
      return;
    }
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return;
    const pool = this.#options.pool;
    const known = pod.status?.podIP;
    const podIP = known?.startsWith(`127.${pool.subnet}.`) ? known : pool.allocate();
    pool.claim(podIP);
    const read: KeyReader = (kind, objectName) => this.#readKeys(kind, namespace!, objectName);
    runner = new PodRunner(pod, {
      rest: this.#options.rest,
      podIP,
      hostIP: pool.hostIP,
      podDir: join(this.#options.dir, `${namespace}_${name}_${uid}`),
      read,
      restartBackoffMs: this.#options.restartBackoffMs ?? 1000,
      maxRestartBackoffMs: this.#options.maxRestartBackoffMs ?? 20_000,
      log: this.#options.log,
    });
    this.#runners.set(uid, runner);
    this.#names.set(`${namespace}/${name}`, uid);
    void runner.start();
  }

  /** Graceful deletion: stop the processes within the grace period, then remove the pod object for good. */
  async #finishDeletion(pod: V1Pod, runner: PodRunner | undefined): Promise<void> {
    const { namespace, name, uid } = pod.metadata!;
    await runner?.terminate(pod.metadata?.deletionGracePeriodSeconds ?? 30);
    try {
      await this.#options.rest.request('DELETE', `/api/v1/namespaces/${namespace}/pods/${name}`, {
        body: { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid } },
      });
    } catch (error) {
      if (!(error instanceof KubeApiError && (error.status === 404 || error.status === 409))) {
        this.#options.log(`deleting pod ${namespace}/${name}: ${(error as Error).message}`);
      }
    }
    await this.#forget(uid!);
  }

  async #forget(uid: string): Promise<void> {
    const runner = this.#runners.get(uid);
    this.#runners.delete(uid);
    this.#deleting.delete(uid);
    for (const [key, value] of this.#names) if (value === uid) this.#names.delete(key);
    if (!runner) return;
    await runner.stop();
    this.#options.pool.release(runner.podIP);
    rmSync(runner.dir, { recursive: true, force: true });
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.all([...this.#runners.values()].map((r) => r.stop()));
    this.#runners.clear();
    await this.#loop;
    rmSync(this.#options.dir, { recursive: true, force: true });
  }
}
