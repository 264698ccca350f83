import { type KubeRest, listWatch } from '@opkit/test-cluster';
import { ALL_DEPLOYMENTS, ALL_MEMCACHEDS, type FleetApi, GUIDE_API, memberKey } from './fleet.js';

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly observedGeneration?: number;
}

interface ObjectMeta {
  readonly name: string;
  readonly namespace: string;
  readonly generation?: number;
}

interface MemcachedObject {
  readonly metadata: ObjectMeta;
  readonly spec: { readonly size?: number; readonly replicas?: number };
  readonly status?: { readonly conditions?: readonly Condition[] };
}

interface DeploymentObject {
  readonly metadata: ObjectMeta;
  readonly spec?: { readonly replicas?: number };
  readonly status?: {
    readonly observedGeneration?: number;
    readonly replicas?: number;
    readonly updatedReplicas?: number;
    readonly readyReplicas?: number;
  };
}

const keyOf = (o: { readonly metadata: ObjectMeta }) => memberKey(o.metadata.namespace, o.metadata.name);

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
 * Watches the Memcacheds and Deployments of a fleet's namespaces and tells when the fleet reaches a state.
 * The check runs per object on every event, so the moment of convergence is the arrival of the last event.
 * One watch per kind over all namespaces, of which it keeps the fleet's.
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
  constructor(rest: KubeRest, namespaces: readonly string[], size: number, api: FleetApi) {
    this.#size = size;
    this.#api = api;
    const ours = new Set(namespaces);
    const track = <T extends { metadata: ObjectMeta }>(map: Map<string, T>) => ({
      sync: (items: T[]) => {
        map.clear();
        for (const item of items) if (ours.has(item.metadata.namespace)) map.set(keyOf(item), item);
        this.#synced++;
        for (const key of new Set([...this.#crs.keys(), ...this.#deployments.keys(), ...this.#converged])) {
          this.#recheck(key);
        }
        this.#notify();
      },
      added: (item: T) => this.#put(ours, map, item),
      modified: (item: T) => this.#put(ours, map, item),
      deleted: (item: T) => {
        if (!ours.has(item.metadata.namespace)) return;
        map.delete(keyOf(item));
        this.#recheck(keyOf(item));
        this.#notify();
      },
    });
    void listWatch<MemcachedObject>(rest, ALL_MEMCACHEDS(api), {}, track(this.#crs), this.#stop.signal);
    void listWatch<DeploymentObject>(rest, ALL_DEPLOYMENTS, {}, track(this.#deployments), this.#stop.signal);
  }

  #put<T extends { metadata: ObjectMeta }>(ours: ReadonlySet<string>, map: Map<string, T>, item: T): void {
    if (!ours.has(item.metadata.namespace)) return;
    map.set(keyOf(item), item);
    this.#recheck(keyOf(item));
    this.#notify();
  }

  /** `key`: `namespace/name`, the Memcached's and its Deployment's. */
  #recheck(key: string): void {
    const cr = this.#crs.get(key);
    const api = this.#api;
    if (cr && cr.spec[api.sizeField] === this.#size && isConverged(cr, this.#deployments.get(key), api)) {
      this.#converged.add(key);
    } else this.#converged.delete(key);
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
    for (const key of this.#crs.keys()) this.#recheck(key);
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
