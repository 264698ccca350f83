import type { V1Node } from '@kubernetes/client-node';
import type { ObjectClient } from '../../client/object-client.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../errors/errors.js';
import { CONFIG_MAP, type ConfigMap, POD, type Pod, type WireObject } from '../../kinds/kinds.js';
import { kind, type OwnerReference } from '../../object.js';
import { sleep } from '../cache/backoff.js';

type Node = WireObject<V1Node>;
const NODE = kind<Node>('v1', 'Node');

/** The calls leader for life makes: the manager's direct client, or a FakeClient in tests. */
export type LockClient = Pick<ObjectClient, 'get' | 'create' | 'delete'>;

export interface LeaderForLifeOptions {
  /** The lock ConfigMap's name (the election id). */
  readonly id: string;
  /** The operator's namespace: where the lock and this replica's Pod are. */
  readonly namespace: string;
  /** This replica's Pod, whose lifetime the lock follows. */
  readonly podName: string;
  /** First wait after finding the lock held. @default 1000 */
  readonly initialBackoffMs?: number;
  /** The wait doubles up to this cap. @default 16000 */
  readonly maxBackoffMs?: number;
}

/**
 * What to do about a lock held by another Pod. This mirrors operator-lib's `leader.Become`:
 * - the holder Pod is gone: wait — the garbage collector deletes the lock, it is never deleted here;
 * - the holder Pod failed with reason `Evicted` or `Preempting` and is not being deleted yet: delete the Pod
 *   (its containers are no longer running) and keep waiting for the garbage collector;
 * - the holder's Node reports Ready other than True: delete the holder Pod **and** the lock, so a successor
 *   can lead without waiting for the node to come back. This trades safety for availability exactly as
 *   operator-lib does: a leader cut off on a partitioned node may still be running while the successor
 *   starts;
 * - the lock has not exactly one owner, or its owner is not a Pod: wait (it is not ours to judge).
 */
export type HolderVerdict =
  | { readonly action: 'wait'; readonly reason: string }
  | { readonly action: 'wait-for-gc'; readonly holder: string }
  | { readonly action: 'delete-holder-pod'; readonly holder: string; readonly reason: string }
  | { readonly action: 'delete-holder-pod-and-lock'; readonly holder: string; readonly node: string };

/** The lock's single Pod owner, or why the lock does not name one. */
export function lockHolder(lock: ConfigMap): OwnerReference | string {
  const owners = lock.metadata.ownerReferences ?? [];
  if (owners.length !== 1) return `the lock has ${owners.length} owner references, not exactly one`;
  const [owner] = owners as [OwnerReference];
  if (owner.kind !== 'Pod') return `the lock's owner is a ${owner.kind}, not a Pod`;
  return owner;
}

/** The Pod reason operator-lib deletes a failed holder for: its containers have stopped for good. */
function failedForGood(pod: Pod): string | undefined {
  if (pod.status?.phase !== 'Failed' || pod.metadata.deletionTimestamp) return undefined;
  const reason = pod.status.reason;
  return reason === 'Evicted' || reason === 'Preempting' ? reason : undefined;
}

function nodeNotReady(node: Node | undefined): boolean {
  const ready = node?.status?.conditions?.find((c) => c.type === 'Ready');
  return ready !== undefined && ready.status !== 'True';
}

/**
 * The decision about a lock another Pod holds, from what the API server said: `pod` undefined when the
 * holder Pod is not found, `node` undefined when its Node is unknown or could not be read.
 */
export function judgeHolder(lock: ConfigMap, pod: Pod | undefined, node: Node | undefined): HolderVerdict {
  const holder = lockHolder(lock);
  if (typeof holder === 'string') return { action: 'wait', reason: holder };
  if (!pod || (holder.uid && pod.metadata.uid !== holder.uid)) {
    return { action: 'wait-for-gc', holder: holder.name };
  }
  const failed = failedForGood(pod);
  if (failed) return { action: 'delete-holder-pod', holder: holder.name, reason: failed };
  if (nodeNotReady(node)) {
    return { action: 'delete-holder-pod-and-lock', holder: holder.name, node: pod.spec?.nodeName ?? '' };
  }
  return { action: 'wait', reason: `pod ${holder.name} leads` };
}

/** What the elector reports while it waits; the manager logs it. */
export type ForLifeEvent =
  | { readonly kind: 'resumed' }
  | { readonly kind: 'created' }
  | { readonly kind: 'held'; readonly verdict: HolderVerdict }
  | { readonly kind: 'error'; readonly error: Error };

/**
 * Leader for life: the leader is the Pod whose create of the lock ConfigMap succeeded, and it leads until
 * that Pod is gone. The lock carries an ownerReference to the Pod, so the garbage collector deletes it once
 * the Pod is deleted; there are no renewals and nothing to release. A Pod whose process restarts finds the
 * lock it owns and leads again (the previous process of the same Pod is gone by then).
 */
export class LeaderForLife {
  readonly #client: LockClient;
  readonly #o: Required<LeaderForLifeOptions>;
  #leading = false;

  constructor(client: LockClient, options: LeaderForLifeOptions) {
    this.#client = client;
    this.#o = { initialBackoffMs: 1_000, maxBackoffMs: 16_000, ...options };
  }

  get isLeader(): boolean {
    return this.#leading;
  }

  /**
   * Retries until this Pod holds the lock (resolves true) or `signal` aborts (resolves false); errors are
   * reported and retried after the back-off, which doubles from the initial wait up to the cap (±20 %).
   */
  async acquire(signal: AbortSignal, report: (event: ForLifeEvent) => void = () => {}): Promise<boolean> {
    let backoff = this.#o.initialBackoffMs;
    let me: OwnerReference | undefined;
    while (!signal.aborted) {
      try {
        me ??= await this.#ownerRef();
        const outcome = await this.#attempt(me, report);
        if (outcome === 'ours') {
          this.#leading = true;
          return true;
        }
        if (outcome === 'retry-now') continue;
      } catch (error) {
        report({ kind: 'error', error: error as Error });
      }
      await sleep(backoff * (0.8 + Math.random() * 0.4), signal);
      backoff = Math.min(backoff * 2, this.#o.maxBackoffMs);
    }
    return false;
  }

  async #ownerRef(): Promise<OwnerReference> {
    const pod = await this.#client.get(POD, this.#o.podName, this.#o.namespace);
    return { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name, uid: pod.metadata.uid };
  }

  /** One look at the lock: take it when absent, resume it when ours, else act on the verdict. */
  async #attempt(
    me: OwnerReference,
    report: (event: ForLifeEvent) => void,
  ): Promise<'ours' | 'held' | 'retry-now'> {
    const { id, namespace } = this.#o;
    const existing = await this.#getLock();
    if (existing && (existing.metadata.ownerReferences ?? []).some((o) => o.uid === me.uid)) {
      report({ kind: 'resumed' });
      return 'ours';
    }
    if (!existing) {
      try {
        // Create-if-absent: of all replicas, exactly one create succeeds; only that one leads.
        await this.#client.create<ConfigMap>({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: id, namespace, ownerReferences: [me] },
        });
        report({ kind: 'created' });
        return 'ours';
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
        return 'retry-now';
      }
    }
    const holder = lockHolder(existing);
    const pod = typeof holder === 'string' ? undefined : await this.#getHolderPod(holder.name);
    const node = pod?.spec?.nodeName ? await this.#getNode(pod.spec.nodeName) : undefined;
    const verdict = judgeHolder(existing, pod, node);
    report({ kind: 'held', verdict });
    if (verdict.action === 'delete-holder-pod' || verdict.action === 'delete-holder-pod-and-lock') {
      // Preconditions: never delete a newer Pod of the same name, nor a lock another replica just took.
      await this.#deleteIfPresent(POD, verdict.holder, pod?.metadata.uid);
      if (verdict.action === 'delete-holder-pod-and-lock') {
        await this.#deleteIfPresent(CONFIG_MAP, id, existing.metadata.uid);
        return 'retry-now';
      }
    }
    return 'held';
  }

  async #getLock(): Promise<ConfigMap | undefined> {
    try {
      return await this.#client.get(CONFIG_MAP, this.#o.id, this.#o.namespace);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async #getHolderPod(name: string): Promise<Pod | undefined> {
    try {
      return await this.#client.get(POD, name, this.#o.namespace);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** The holder's Node; undefined when it cannot be read (no RBAC on nodes, say): then it is not judged. */
  async #getNode(name: string): Promise<Node | undefined> {
    try {
      return await this.#client.get(NODE, name);
    } catch {
      return undefined;
    }
  }

  async #deleteIfPresent(
    type: typeof POD | typeof CONFIG_MAP,
    name: string,
    uid: string | undefined,
  ): Promise<void> {
    try {
      await this.#client.delete(
        { ...type, name, namespace: this.#o.namespace },
        uid ? { preconditions: { uid } } : {},
      );
    } catch (error) {
      // Gone already, or replaced by a newer object (the precondition failed): nothing of the holder's left.
      if (!isNotFound(error) && !isConflict(error)) throw error;
    }
  }
}
