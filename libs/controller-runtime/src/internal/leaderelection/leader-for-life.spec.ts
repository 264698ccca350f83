import { setTimeout as pause } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ApiError, isNotFound } from '../../errors/errors.js';
import { CONFIG_MAP, type ConfigMap, POD, type Pod } from '../../kinds/kinds.js';
import type { KubeObject } from '../../object.js';
import { FakeClient, type Interceptors } from '../../testing/fake-client.js';
import {
  deletionMessage,
  type ForLifeEvent,
  judgeHolder,
  LeaderForLife,
  LeaderForLifeError,
} from './leader-for-life.js';

const NS = 'operators';
const LOCK = 'demo-operator-lock';

const pod = (name: string, extra: Partial<Pod> = {}): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NS, uid: `uid-${name}` },
  spec: { containers: [{ name: 'manager' }], nodeName: 'node-a' },
  ...extra,
});
const lockOwnedBy = (...owners: { name: string; kind?: string; uid?: string }[]): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: LOCK,
    namespace: NS,
    uid: 'uid-lock',
    ownerReferences: owners.map((o) => ({
      apiVersion: 'v1',
      kind: o.kind ?? 'Pod',
      name: o.name,
      uid: o.uid ?? `uid-${o.name}`,
    })),
  },
});
const node = (ready: 'True' | 'False' | 'Unknown'): KubeObject & { status: unknown } => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'node-a' },
  status: { conditions: [{ type: 'Ready', status: ready }] },
});
const failed = (reason: string, deleting = false): Pod =>
  pod('old', {
    metadata: {
      name: 'old',
      namespace: NS,
      uid: 'uid-old',
      ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['hold'] } : {}),
    },
    status: { phase: 'Failed', reason },
  });

describe('judgeHolder: what to do about a lock another Pod holds', () => {
  it('waits for the garbage collector once the holder Pod is gone, or replaced by a Pod of the same name', () => {
    expect(judgeHolder(lockOwnedBy({ name: 'old' }), undefined, undefined)).toEqual({
      action: 'wait-for-gc',
      holder: 'old',
    });
    const newer = pod('old', { metadata: { name: 'old', namespace: NS, uid: 'uid-newer' } });
    expect(judgeHolder(lockOwnedBy({ name: 'old' }), newer, undefined).action).toBe('wait-for-gc');
  });

  it('waits while the holder Pod runs, on a Ready node or one it cannot read', () => {
    expect(judgeHolder(lockOwnedBy({ name: 'old' }), pod('old'), undefined).action).toBe('wait');
    expect(judgeHolder(lockOwnedBy({ name: 'old' }), pod('old'), node('True') as never).action).toBe('wait');
  });

  it('deletes an Evicted or Preempting holder Pod that is not being deleted yet, but not the lock', () => {
    expect(judgeHolder(lockOwnedBy({ name: 'old' }), failed('Evicted'), undefined)).toEqual({
      action: 'delete-holder-pod',
      holder: 'old',
      reason: 'Evicted',
    });
    expect(judgeHolder(lockOwnedBy({ name: 'old' }), failed('Preempting'), undefined).action).toBe(
      'delete-holder-pod',
    );
    expect(judgeHolder(lockOwnedBy({ name: 'old' }), failed('Evicted', true), undefined).action).toBe('wait');
    expect(judgeHolder(lockOwnedBy({ name: 'old' }), failed('Error'), undefined).action).toBe('wait');
  });

  it('deletes the holder Pod and the lock when the holder’s node is not Ready', () => {
    for (const status of ['False', 'Unknown'] as const) {
      expect(judgeHolder(lockOwnedBy({ name: 'old' }), pod('old'), node(status) as never)).toEqual({
        action: 'delete-holder-pod-and-lock',
        holder: 'old',
        node: 'node-a',
      });
    }
  });

  it('deletes nothing whose UID it does not know: it waits instead', () => {
    const withoutUid = (p: Pod): Pod => ({ ...p, metadata: { ...p.metadata, uid: undefined } });
    const evicted = judgeHolder(
      lockOwnedBy({ name: 'old', uid: '' }),
      withoutUid(failed('Evicted')),
      undefined,
    );
    expect(evicted).toEqual({ action: 'wait', reason: 'the UID of pod old is unknown' });
    const onNotReady = judgeHolder(
      lockOwnedBy({ name: 'old', uid: '' }),
      withoutUid(pod('old')),
      node('False') as never,
    );
    expect(onNotReady).toEqual({ action: 'wait', reason: 'the UID of pod old is unknown' });
    const owned = lockOwnedBy({ name: 'old' });
    const lockWithoutUid = { ...owned, metadata: { ...owned.metadata, uid: undefined } };
    expect(judgeHolder(lockWithoutUid, pod('old'), node('False') as never)).toEqual({
      action: 'wait',
      reason: 'the UID of the lock is unknown',
    });
  });

  it('leaves a lock alone that does not name exactly one Pod', () => {
    expect(judgeHolder(lockOwnedBy(), undefined, undefined).action).toBe('wait');
    expect(judgeHolder(lockOwnedBy({ name: 'a' }, { name: 'b' }), undefined, undefined).action).toBe('wait');
    const byDeployment = judgeHolder(lockOwnedBy({ name: 'op', kind: 'Deployment' }), undefined, undefined);
    expect(byDeployment).toEqual({ action: 'wait', reason: "the lock's owner is a Deployment, not a Pod" });
  });
});

describe('deletionMessage: the log line of a verdict that deletes', () => {
  it('says a Pod on a NotReady node may still be running, and an evicted one cannot run any more', () => {
    expect(deletionMessage({ action: 'delete-holder-pod-and-lock', holder: 'old', node: 'node-a' })).toBe(
      'deleting the leader pod on a NotReady node, and its lock (that pod may still be running)',
    );
    expect(deletionMessage({ action: 'delete-holder-pod', holder: 'old', reason: 'Evicted' })).toBe(
      'deleting the leader pod that cannot run any more',
    );
    expect(deletionMessage({ action: 'wait', reason: 'pod old leads' })).toBeUndefined();
  });
});

/** Elects `podName` against `client` with millisecond back-off; records what it reported. */
function candidate(client: FakeClient, podName: string, maxBackoffMs = 4) {
  const stop = new AbortController();
  const events: ForLifeEvent[] = [];
  const elector = new LeaderForLife(client, {
    id: LOCK,
    namespace: NS,
    podName,
    initialBackoffMs: 1,
    maxBackoffMs,
  });
  let settled = false;
  const acquired = elector
    .acquire(stop.signal, (e) => events.push(e))
    .finally(() => {
      settled = true;
    });
  return { elector, events, acquired, stop, led: () => settled && elector.isLeader };
}

const apiError = (status: number) => new ApiError(status, `Status${status}`, `status ${status}`, 'GET', '/');
/** Interceptors failing every `verb` call on `kind` with `status`. */
const failing = (verb: 'get' | 'create', kindName: string, status: number): Interceptors => ({
  [verb]: ({ action }: { action: { kind: string } }) =>
    action.kind === kindName ? Promise.reject(apiError(status)) : undefined,
});
const lock = (client: FakeClient) => client.get(CONFIG_MAP, LOCK, NS);
const exists = async (client: FakeClient, type: typeof POD | typeof CONFIG_MAP, name: string) => {
  try {
    await client.get(type, name, NS);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
};

describe('LeaderForLife', () => {
  it('leads once its create of the lock succeeds; the lock is owned by its own Pod', async () => {
    const client = new FakeClient({ objects: [pod('me')] });
    const me = candidate(client, 'me');
    expect(await me.acquired).toBe(true);
    expect(me.elector.isLeader).toBe(true);
    expect((await lock(client)).metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Pod', name: 'me', uid: 'uid-me' },
    ]);
    expect(me.events.map((e) => e.kind)).toEqual(['created']);
  });

  it('of two Pods racing for an absent lock, exactly one leads', async () => {
    const client = new FakeClient({ objects: [pod('a'), pod('b')] });
    const a = candidate(client, 'a');
    const b = candidate(client, 'b');
    await Promise.race([a.acquired, b.acquired]);
    await pause(30);
    expect([a.led(), b.led()].filter(Boolean)).toHaveLength(1);
    const winner = a.led() ? 'a' : 'b';
    expect((await lock(client)).metadata.ownerReferences?.[0]?.name).toBe(winner);
    a.stop.abort();
    b.stop.abort();
    expect(await Promise.all([a.acquired, b.acquired])).toEqual([winner === 'a', winner === 'b']);
  });

  it('waits while the holder Pod exists, even while it terminates, and leads once the lock is collected', async () => {
    const terminating = pod('old', {
      metadata: {
        name: 'old',
        namespace: NS,
        uid: 'uid-old',
        deletionTimestamp: '2026-01-01T00:00:00Z',
        finalizers: ['hold'],
      },
    });
    const client = new FakeClient({ objects: [pod('me'), terminating, lockOwnedBy({ name: 'old' })] });
    const me = candidate(client, 'me');
    await pause(50);
    expect(me.led()).toBe(false);
    expect(await exists(client, POD, 'old')).toBe(true); // a running holder is never deleted
    // The Pod is gone: the lock stays until the garbage collector deletes it (simulated here).
    await client.update({ ...terminating, metadata: { ...terminating.metadata, finalizers: [] } });
    await pause(30);
    expect(me.led()).toBe(false);
    expect(me.events.at(-1)).toEqual({ kind: 'held', verdict: { action: 'wait-for-gc', holder: 'old' } });
    await client.delete({ ...CONFIG_MAP, name: LOCK, namespace: NS });
    expect(await me.acquired).toBe(true);
  });

  it('after a restart of its process, finds the lock its Pod owns and leads without a create', async () => {
    const client = new FakeClient({ objects: [pod('me'), lockOwnedBy({ name: 'me' })] });
    const me = candidate(client, 'me');
    expect(await me.acquired).toBe(true);
    expect(me.events.map((e) => e.kind)).toEqual(['resumed']);
    expect(client.writes()).toEqual([]);
  });

  it('deletes an Evicted holder Pod, then waits for the garbage collector', async () => {
    const client = new FakeClient({ objects: [pod('me'), failed('Evicted'), lockOwnedBy({ name: 'old' })] });
    const me = candidate(client, 'me');
    await pause(50);
    expect(await exists(client, POD, 'old')).toBe(false);
    expect(await exists(client, CONFIG_MAP, LOCK)).toBe(true);
    expect(me.led()).toBe(false);
    await client.delete({ ...CONFIG_MAP, name: LOCK, namespace: NS });
    expect(await me.acquired).toBe(true);
  });

  it('deletes the holder Pod and the lock when the holder’s node is NotReady, then takes the lock', async () => {
    const client = new FakeClient({
      objects: [pod('me'), pod('old'), node('Unknown'), lockOwnedBy({ name: 'old' })],
    });
    const me = candidate(client, 'me');
    expect(await me.acquired).toBe(true);
    expect(await exists(client, POD, 'old')).toBe(false);
    expect((await lock(client)).metadata.ownerReferences?.[0]?.name).toBe('me');
  });

  it('reports a failure a retry may mend (500 from the API server) and keeps trying', async () => {
    const client = new FakeClient({
      objects: [pod('me')],
      interceptors: { get: ({ count }) => (count <= 2 ? Promise.reject(apiError(500)) : undefined) },
    });
    const me = candidate(client, 'me');
    expect(await me.acquired).toBe(true);
    expect(me.events.map((e) => e.kind)).toEqual(['error', 'error', 'created']);
  });

  it('rejects at once when its own Pod does not exist: POD_NAME names another Pod', async () => {
    const me = candidate(new FakeClient(), 'me');
    await expect(me.acquired).rejects.toThrow(
      new LeaderForLifeError(
        "leader election for life: pod operators/me not found: POD_NAME must name this replica's own Pod, in namespace operators",
      ),
    );
    expect(me.events).toEqual([]);
  });

  it('rejects at once, naming the missing permission, when RBAC forbids reading its own Pod', async () => {
    const client = new FakeClient({ objects: [pod('me')], interceptors: failing('get', 'Pod', 403) });
    await expect(candidate(client, 'me').acquired).rejects.toThrow(
      'leader election for life: forbidden to get pod operators/me: grant the service account get on pods in namespace operators',
    );
  });

  it('rejects at once when the API server does not accept its credentials', async () => {
    const client = new FakeClient({ objects: [pod('me')], interceptors: failing('get', 'Pod', 401) });
    await expect(candidate(client, 'me').acquired).rejects.toThrow(
      "leader election for life: the API server rejected this replica's credentials (401 Unauthorized) to get pod operators/me",
    );
  });

  it('rejects at once, naming the missing permission, when RBAC forbids creating the lock', async () => {
    const client = new FakeClient({
      objects: [pod('me')],
      interceptors: failing('create', 'ConfigMap', 403),
    });
    await expect(candidate(client, 'me').acquired).rejects.toThrow(
      `leader election for life: forbidden to create configmap operators/${LOCK}: grant the service account create on configmaps in namespace operators`,
    );
  });

  it('deletes neither the holder Pod nor the lock when the API server gave the Pod no UID', async () => {
    const client = new FakeClient({
      objects: [pod('me'), pod('old'), node('Unknown'), lockOwnedBy({ name: 'old', uid: '' })],
      interceptors: {
        get: ({ name, next }) =>
          name === 'old'
            ? next().then((o) => ({ ...o, metadata: { ...o.metadata, uid: undefined } }) as never)
            : undefined,
      },
    });
    const me = candidate(client, 'me');
    await pause(50);
    me.stop.abort();
    expect(await me.acquired).toBe(false);
    expect(client.writes()).toEqual([]);
    expect(me.events.at(-1)).toEqual({
      kind: 'held',
      verdict: { action: 'wait', reason: 'the UID of pod old is unknown' },
    });
  });

  it('caps the back-off: a held lock is looked at again at least every cap (+20 %)', async () => {
    const client = new FakeClient({ objects: [pod('me'), pod('old'), lockOwnedBy({ name: 'old' })] });
    const me = candidate(client, 'me', 4);
    await pause(250);
    me.stop.abort();
    expect(await me.acquired).toBe(false);
    // Doubling without a cap would look about 8 times in 250 ms (1, 2, 4, … 128 ms); capped at 4 ms, dozens.
    expect(me.events.filter((e) => e.kind === 'held').length).toBeGreaterThan(15);
  });
});
