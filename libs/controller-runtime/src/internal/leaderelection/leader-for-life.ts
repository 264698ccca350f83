import type { V1Node } from '@kubernetes/client-node';
import type { ObjectClient } from '../../client/object-client.js';
import { ApiError, isAlreadyExists, isConflict, isNotFound } from '../../errors/errors.js';
import { CONFIG_MAP, type ConfigMap, POD, type Pod, type WireObject } from '../../kinds/kinds.js';
import { kind, type OwnerReference } from '../../object.js';
import { Backoff, sleep } from '../retry/backoff.js';

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
 * A failure no retry can mend: the credentials are rejected, RBAC forbids a call the election needs, or this
 * replica's own Pod does not exist. `acquire` rejects with it.
 */
export class LeaderForLifeError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LeaderForLifeError';
  }
}

type Verb = 'get' | 'create' | 'delete';

/** The permanent failure `error` is for `verb` on `resource` `namespace/name`, or undefined when a retry may help. */
function permanentFailure(
  error: unknown,
  call: {
    readonly verb: Verb;
    readonly resource: 'pods' | 'configmaps';
    readonly namespace: string;
    readonly name: string;
  },
  ownPod = false,
): LeaderForLifeError | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const { verb, resource, namespace, name } = call;
  const what = `${resource === 'pods' ? 'pod' : 'configmap'} ${namespace}/${name}`;
  if (error.status === 401) {
    return new LeaderForLifeError(
      `leader election for life: the API server rejected this replica's credentials (401 Unauthorized) to ${verb} ${what}`,
      { cause: error },
    );
  }
  if (error.status === 403) {
    return new LeaderForLifeError(
      `leader election for life: forbidden to ${verb} ${what}: grant the service account ${verb} on ${resource} in namespace ${namespace}`,
      { cause: error },
    );
  }
  if (ownPod && error.status === 404) {
    return new LeaderForLifeError(
      `leader election for life: pod ${namespace}/${name} not found: POD_NAME must name this replica's own Pod, in namespace ${namespace}`,
      { cause: error },
    );
  }
  return undefined;
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
 *
 * Nothing is deleted without its UID as a precondition: when the holder Pod's UID (or, on a NotReady node,
 * the lock's) is unknown, it waits instead.
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
  const notReady = nodeNotReady(node);
  if (failed || notReady) {
    // Without the UID a delete could hit a newer Pod of the same name, or a lock another replica just took.
    if (!pod.metadata.uid) return { action: 'wait', reason: `the UID of pod ${holder.name} is unknown` };
    if (failed) return { action: 'delete-holder-pod', holder: holder.name, reason: failed };
    if (!lock.metadata.uid) return { action: 'wait', reason: 'the UID of the lock is unknown' };
    return { action: 'delete-holder-pod-and-lock', holder: holder.name, node: pod.spec?.nodeName ?? '' };
  }
  return { action: 'wait', reason: `pod ${holder.name} leads` };
}

/** The log line for a verdict that deletes: a NotReady node's Pod may still be running, an evicted one is not. */
export function deletionMessage(verdict: HolderVerdict): string | undefined {
  if (verdict.action === 'delete-holder-pod') return 'deleting the leader pod that cannot run any more';
  if (verdict.action === 'delete-holder-pod-and-lock') {
    return 'deleting the leader pod on a NotReady node, and its lock (that pod may still be running)';
  }
  return undefined;
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
   * reported and retried after the back-off, which doubles from the initial wait up to the cap (plus up to
   * 20 %, as operator-lib's). Rejects with a {@link LeaderForLifeError} when no retry can help.
   */
  async acquire(signal: AbortSignal, report: (event: ForLifeEvent) => void = () => {}): Promise<boolean> {
    const backoff = new Backoff({
      initialMs: this.#o.initialBackoffMs,
      maxMs: this.#o.maxBackoffMs,
      jitter: 0.2,
      resetAfterMs: Number.POSITIVE_INFINITY,
    });
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
        if (error instanceof LeaderForLifeError) throw error;
        report({ kind: 'error', error: error as Error });
      }
      await sleep(backoff.next(), signal);
    }
    return false;
  }

  /** Runs one call the election needs; a failure no retry mends becomes a LeaderForLifeError. */
  async #call<T>(
    call: { readonly verb: Verb; readonly resource: 'pods' | 'configmaps'; readonly name: string },
    run: () => Promise<T>,
    ownPod = false,
  ): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw permanentFailure(error, { ...call, namespace: this.#o.namespace }, ownPod) ?? error;
    }
  }

  async #ownerRef(): Promise<OwnerReference> {
    const { podName, namespace } = this.#o;
    const pod = await this.#call(
      { verb: 'get', resource: 'pods', name: podName },
      () => this.#client.get(POD, podName, namespace),
      true,
    );
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
        await this.#call({ verb: 'create', resource: 'configmaps', name: id }, () =>
          this.#client.create<ConfigMap>({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: id, namespace, ownerReferences: [me] },
          }),
        );
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
    // judgeHolder deletes only what it knows the UID of: the preconditions never hit a newer Pod of the
    // same name, nor a lock another replica just took.
    if (verdict.action === 'delete-holder-pod' || verdict.action === 'delete-holder-pod-and-lock') {
      await this.#deleteIfPresent(POD, verdict.holder, pod?.metadata.uid);
      if (verdict.action === 'delete-holder-pod-and-lock') {
        await this.#deleteIfPresent(CONFIG_MAP, id, existing.metadata.uid);
        return 'retry-now';
      }
    }
    return 'held';
  }

  async #getLock(): Promise<ConfigMap | undefined> {
    const { id, namespace } = this.#o;
    try {
      return await this.#call({ verb: 'get', resource: 'configmaps', name: id }, () =>
        this.#client.get(CONFIG_MAP, id, namespace),
      );
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async #getHolderPod(name: string): Promise<Pod | undefined> {
    try {
      return await this.#call({ verb: 'get', resource: 'pods', name }, () =>
        this.#client.get(POD, name, this.#o.namespace),
      );
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
    // judgeHolder waits instead of deciding to delete an object whose UID it does not know.
    if (!uid) throw new Error(`refusing to delete ${type.kind} ${name} without its UID`);
    const resource = type === POD ? 'pods' : 'configmaps';
    try {
      await this.#call({ verb: 'delete', resource, name }, () =>
        this.#client.delete({ ...type, name, namespace: this.#o.namespace }, { preconditions: { uid } }),
      );
    } catch (error) {
      // Gone already, or replaced by a newer object (the precondition failed): nothing of the holder's left.
      if (!isNotFound(error) && !isConflict(error)) throw error;
    }
  }
}
