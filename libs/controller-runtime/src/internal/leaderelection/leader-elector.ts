import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { DirectClient } from '../../client/direct-client.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../errors/errors.js';
import type { KubeObject } from '../../object.js';
import { sleep } from '../retry/backoff.js';

/** A coordination.k8s.io/v1 Lease. */
export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number;
  };
}

export interface LeaderElectionOptions {
  /** Lease name (controller-runtime's `LeaderElectionID`). */
  readonly id: string;
  readonly namespace: string;
  /** @default `${hostname}_${uuid}` */
  readonly identity?: string;
  /** @default 15000 */
  readonly leaseDurationMs?: number;
  /** @default 10000 */
  readonly renewDeadlineMs?: number;
  /** @default 2000 */
  readonly retryPeriodMs?: number;
}

export class LeaderElectionConfigError extends Error {
  readonly code = 'RUNTIME_LEADER_ELECTION_CONFIG';
}

/** Leadership was lost (the lease could not be renewed in time, or another holder took it). */
export class LeaderElectionLostError extends Error {
  readonly code = 'RUNTIME_LEADER_ELECTION_LOST';
}

const JITTER = 1.2;

/** `attempt`'s outcome, or `'timeout'` when it has not settled within `ms` (it is then left to settle alone). */
async function beforeDeadline<T>(attempt: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  attempt.catch(() => {});
  try {
    return await Promise.race([
      attempt,
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), Math.max(0, ms));
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
const microTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

/**
 * Leader election on a Lease, with client-go's algorithm: a candidate takes the lease when its holder has not
 * renewed it for a lease duration *as observed locally* (no trust in other clocks); the leader renews every
 * retry period and gives up when it could not renew within the renew deadline; on a graceful stop it
 * releases the lease so a successor takes over at its next retry instead of waiting out the lease.
 */
export class LeaderElector {
  readonly identity: string;
  readonly #client: DirectClient;
  readonly #o: Required<Omit<LeaderElectionOptions, 'identity'>>;
  #observedRecord = '';
  #observedAt = 0;
  #lease: Lease | undefined;
  #leading = false;
  /** When the attempt that last wrote our renewTime started: others count the lease from no earlier. */
  #renewedAt = 0;

  constructor(client: DirectClient, options: LeaderElectionOptions) {
    this.#client = client;
    this.identity = options.identity ?? `${hostname()}_${randomUUID()}`;
    this.#o = {
      id: options.id,
      namespace: options.namespace,
      leaseDurationMs: options.leaseDurationMs ?? 15_000,
      renewDeadlineMs: options.renewDeadlineMs ?? 10_000,
      retryPeriodMs: options.retryPeriodMs ?? 2_000,
    };
    const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = this.#o;
    if (!(leaseDurationMs > renewDeadlineMs)) {
      throw new LeaderElectionConfigError('leaseDuration must be greater than renewDeadline');
    }
    if (!(renewDeadlineMs > retryPeriodMs * JITTER)) {
      throw new LeaderElectionConfigError(`renewDeadline must be greater than retryPeriod × ${JITTER}`);
    }
  }

  get isLeader(): boolean {
    return this.#leading;
  }

  #path(): { apiVersion: string; kind: string; name: string; namespace: string } {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      name: this.#o.id,
      namespace: this.#o.namespace,
    };
  }

  /** One attempt to take or renew the lease; true when we hold it afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    return (await this.#attempt()) === 'ours';
  }

  /** `held`: another holder's lease is current; `conflict`: our write raced another (retry). */
  async #attempt(): Promise<'ours' | 'held' | 'conflict'> {
    const now = Date.now();
    const spec = (transitions: number, acquireTime: string) => ({
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.ceil(this.#o.leaseDurationMs / 1000),
      acquireTime,
      renewTime: microTime(now),
      leaseTransitions: transitions,
    });
    let current: Lease;
    try {
      current = await this.#client.get<Lease>(this.#path(), this.#o.id, this.#o.namespace);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      try {
        this.#lease = await this.#client.create<Lease>({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.#o.id, namespace: this.#o.namespace },
          spec: spec(0, microTime(now)),
        });
        this.#observe(this.#lease, now);
        this.#renewedAt = now;
        return 'ours';
      } catch (createError) {
        if (isAlreadyExists(createError)) return 'conflict';
        throw createError;
      }
    }
    const record = JSON.stringify(current.spec ?? {});
    if (record !== this.#observedRecord) this.#observe(current, now);
    const holder = current.spec?.holderIdentity ?? '';
    const held = holder !== '' && holder !== this.identity;
    if (held && this.#observedAt + this.#o.leaseDurationMs > now) return 'held';
    const ours = holder === this.identity;
    const transitions = (current.spec?.leaseTransitions ?? 0) + (ours ? 0 : 1);
    const acquireTime = ours ? (current.spec?.acquireTime ?? microTime(now)) : microTime(now);
    try {
      this.#lease = await this.#client.update<Lease>({ ...current, spec: spec(transitions, acquireTime) });
      this.#observe(this.#lease, now);
      this.#renewedAt = now;
      return 'ours';
    } catch (error) {
      if (isConflict(error)) return 'conflict';
      throw error;
    }
  }

  #observe(lease: Lease, now: number): void {
    this.#observedRecord = JSON.stringify(lease.spec ?? {});
    this.#observedAt = now;
  }

  #retryDelay(): number {
    return this.#o.retryPeriodMs * (1 + Math.random() * (JITTER - 1));
  }

  /** Retries until the lease is ours (resolves true) or `signal` aborts (resolves false). */
  async acquire(signal: AbortSignal, onError?: (e: Error) => void): Promise<boolean> {
    while (!signal.aborted) {
      try {
        if (await this.tryAcquireOrRenew()) {
          this.#leading = true;
          return true;
        }
      } catch (error) {
        onError?.(error as Error);
      }
      await sleep(this.#retryDelay(), signal);
    }
    return false;
  }

  /**
   * Renews every retry period while `signal` is not aborted. Resolves when `signal` aborts; rejects with
   * {@link LeaderElectionLostError} when a renewal could not succeed within the renew deadline — counted from
   * the start of the last successful renewal, and enforced even while a request hangs, so this replica stops
   * acting before another can take the lease (a lease duration after it last saw it renewed).
   */
  async renew(signal: AbortSignal, onError?: (e: Error) => void): Promise<void> {
    const deadline = () => this.#renewedAt + this.#o.renewDeadlineMs;
    const lose = (reason: string): never => {
      this.#leading = false;
      throw new LeaderElectionLostError(`lease ${this.#o.namespace}/${this.#o.id} ${reason}`);
    };
    while (!signal.aborted) {
      await sleep(Math.min(this.#o.retryPeriodMs, Math.max(0, deadline() - Date.now())), signal);
      if (signal.aborted) return;
      try {
        const outcome = await beforeDeadline(this.#attempt(), deadline() - Date.now());
        if (outcome === 'ours') continue;
        if (outcome === 'held') lose('was taken by another holder');
        // A write conflict or no answer yet: retry until the renew deadline, as client-go does.
      } catch (error) {
        if (error instanceof LeaderElectionLostError) throw error;
        onError?.(error as Error);
      }
      if (Date.now() >= deadline()) lose(`could not be renewed within ${this.#o.renewDeadlineMs} ms`);
    }
  }

  /** Gives the lease up (empty holder, 1 s duration) so a successor need not wait for it to expire. */
  async release(): Promise<void> {
    if (!this.#leading || !this.#lease) return;
    this.#leading = false;
    try {
      const now = microTime(Date.now());
      await this.#client.update<Lease>({
        ...this.#lease,
        spec: {
          holderIdentity: null,
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: this.#lease.spec?.leaseTransitions ?? 0,
        },
      });
    } catch {
      // Best effort: the lease then simply expires.
    }
  }
}
