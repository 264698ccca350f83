import { type KubeRest, listWatch } from '@opkit/test-cluster';
import { DEPLOYMENTS, type FleetApi, GUIDE_API, MEMCACHEDS } from './fleet.js';

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly observedGeneration?: number;
}

interface MemcachedObject {
  readonly metadata: { readonly name: string; readonly generation?: number };
  readonly spec: { readonly size?: number; readonly replicas?: number };
  readonly status?: { readonly conditions?: readonly Condition[] };
}

interface DeploymentObject {
  readonly metadata: { readonly name: string; readonly generation?: number };
  readonly spec?: { readonly replicas?: number };
  readonly status?: {
    readonly observedGeneration?: number;
    readonly replicas?: number;
    readonly updatedReplicas?: number;
    readonly readyReplicas?: number;
  };
}

/**
 * A Memcached counts as converged when its `Available` condition is `True` (for the generation it reports,
 * if it reports one) and its Deployment — same name — has rolled out `spec.size` (`spec.replicas` at v1beta1)
 * replicas, all ready.
 */
export function isConverged(
  cr: MemcachedObject,
  deployment: DeploymentObject | undefined,
  api: FleetApi = GUIDE_API,
): boolean {
  const available = cr.status?.conditions?.find((c) => c.type === 'Available');
  if (available?.status !== 'True') return false;
  if (available.observedGeneration !== undefined && available.observedGeneration !== cr.metadata.generation) {
    return false;
  }
  if (!deployment) return false;
  const size = cr.spec[api.sizeField];
  const status = deployment.status ?? {};
  return (
    deployment.spec?.replicas === size &&
    (status.observedGeneration ?? 0) >= (deployment.metadata.generation ?? 0) &&
    status.replicas === size &&
    status.updatedReplicas === size &&
    status.readyReplicas === size
  );
}

/**
 * Watches the Memcacheds and Deployments of one namespace and tells when the fleet reaches a state. The
 * check runs per object on every event, so the moment of convergence is the arrival of the last event.
 */
export class FleetWatch {
  readonly #crs = new Map<string, MemcachedObject>();
  readonly #deployments = new Map<string, DeploymentObject>();
  readonly #converged = new Set<string>();
  readonly #stop = new AbortController();
  readonly #waiters = new Set<() => void>();
  #synced = 0;
  #size: number;
  readonly #api: FleetApi;

  /** `size`: the number of servers a Memcached must ask for to count as converged; `api`: the fleet's version. */
  constructor(rest: KubeRest, namespace: string, size: number, api: FleetApi) {
    this.#size = size;
    this.#api = api;
    const track = <T extends { metadata: { name: string } }>(map: Map<string, T>) => ({
      sync: (items: T[]) => {
        map.clear();
        for (const item of items) map.set(item.metadata.name, item);
        this.#synced++;
        for (const name of new Set([...this.#crs.keys(), ...this.#deployments.keys(), ...this.#converged])) {
          this.#recheck(name);
        }
        this.#notify();
      },
      added: (item: T) => this.#put(map, item),
      modified: (item: T) => this.#put(map, item),
      deleted: (item: T) => {
        map.delete(item.metadata.name);
        this.#recheck(item.metadata.name);
        this.#notify();
      },
    });
    void listWatch<MemcachedObject>(
      rest,
      MEMCACHEDS(namespace, api),
      {},
      track(this.#crs),
      this.#stop.signal,
    );
    void listWatch<DeploymentObject>(
      rest,
      DEPLOYMENTS(namespace),
      {},
      track(this.#deployments),
      this.#stop.signal,
    );
  }

  #put<T extends { metadata: { name: string } }>(map: Map<string, T>, item: T): void {
    map.set(item.metadata.name, item);
    this.#recheck(item.metadata.name);
    this.#notify();
  }

  #recheck(name: string): void {
    const cr = this.#crs.get(name);
    const api = this.#api;
    if (cr && cr.spec[api.sizeField] === this.#size && isConverged(cr, this.#deployments.get(name), api)) {
      this.#converged.add(name);
    } else this.#converged.delete(name);
  }

  #notify(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  get memcacheds(): number {
    return this.#crs.size;
  }

  get convergedCount(): number {
    return this.#converged.size;
  }

  /**
   * Resolves with `performance.now()` at the event that made `done` true. Every 30 s it reports how far the
   * fleet got, so a long run shows progress.
   */
  async until(
    done: () => boolean,
    timeoutMs: number,
    what: string,
    progress?: (line: string) => void,
  ): Promise<number> {
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const state = () => `${this.#converged.size} of ${this.#crs.size} converged`;
      const check = () => {
        if (this.#synced < 2 || !done()) return;
        finish();
        resolve(performance.now());
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`${what}: not reached within ${Math.round(timeoutMs / 1000)} s (${state()})`));
      }, timeoutMs);
      const ticker = setInterval(
        () => progress?.(`    ${what}: ${((performance.now() - started) / 1000).toFixed(0)} s, ${state()}`),
        30_000,
      );
      const finish = () => {
        clearTimeout(timer);
        clearInterval(ticker);
        this.#waiters.delete(check);
      };
      this.#waiters.add(check);
      check();
    });
  }

  /** From now on a Memcached counts as converged only at this size. */
  expectSize(size: number): void {
    this.#size = size;
    for (const name of this.#crs.keys()) this.#recheck(name);
  }

  /** All `count` Memcacheds exist and have converged. */
  allConverged(count: number): () => boolean {
    return () => this.#crs.size === count && this.#converged.size === count;
  }

  /** No Memcached is left (every finalizer removed). */
  allGone(): () => boolean {
    return () => this.#crs.size === 0;
  }

  close(): void {
    this.#stop.abort();
  }
}
