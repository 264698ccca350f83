import { describe, expect, it } from 'vitest';
import { type Condition, type KubeObject, kind } from '../object.js';
import { FakeClient } from '../testing/fake-client.js';
import { recordingEvents } from '../testing/recording-events.js';
import {
  type ConditionEventType,
  patchStatusIfChanged,
  patchStatusWithConditionEvents,
} from './apply-if-changed.js';

interface CacheStatus {
  phase?: string;
  readyReplicas?: number;
  capacity?: Record<string, string>;
  conditions?: Condition[];
}

interface Cache extends KubeObject {
  spec: { replicas: number };
  status?: CacheStatus;
}

const CACHE = kind<Cache>('example.com/v1', 'Cache');

const available = (status: Condition['status']): Condition => ({
  type: 'Available',
  status,
  reason: status === 'True' ? 'ReplicasReady' : 'ReplicasStarting',
  message: '',
  lastTransitionTime: '2026-01-02T03:04:05Z',
});

function cache(status?: CacheStatus): Cache {
  return {
    ...CACHE,
    metadata: { name: 'sessions', namespace: 'default' },
    spec: { replicas: 3 },
    ...(status ? { status } : {}),
  };
}

/** A client holding `obj`, with a status subresource for Cache as its CRD would declare. */
function clientWith(obj: Cache): FakeClient {
  return new FakeClient({ objects: [obj], statusSubresource: [CACHE] });
}

async function storedStatus(client: FakeClient): Promise<CacheStatus | undefined> {
  return (await client.get<Cache>(CACHE, 'sessions', 'default')).status;
}

describe('patchStatusIfChanged', () => {
  it('patches the status subresource when a field differs, and says it wrote', async () => {
    const client = clientWith(cache({ phase: 'Pending', readyReplicas: 1 }));
    const live = await client.get<Cache>(CACHE, 'sessions', 'default');

    const wrote = await patchStatusIfChanged(client, CACHE, live, { phase: 'Running', readyReplicas: 3 });

    expect(wrote).toBe(true);
    expect(client.writes()).toEqual([
      { verb: 'patch', kind: 'Cache', namespace: 'default', name: 'sessions' },
    ]);
    expect(await storedStatus(client)).toEqual({ phase: 'Running', readyReplicas: 3 });
  });

  it('writes the first status of an object that has none', async () => {
    const client = clientWith(cache());
    const live = await client.get<Cache>(CACHE, 'sessions', 'default');

    expect(await patchStatusIfChanged(client, CACHE, live, { phase: 'Pending' })).toBe(true);
    expect(await storedStatus(client)).toEqual({ phase: 'Pending' });
  });

  it('changes only the status, never the spec', async () => {
    const client = clientWith(cache({ phase: 'Pending' }));
    const live = await client.get<Cache>(CACHE, 'sessions', 'default');

    await patchStatusIfChanged(client, CACHE, live, { phase: 'Running' });

    expect((await client.get<Cache>(CACHE, 'sessions', 'default')).spec).toEqual({ replicas: 3 });
  });

  it('does not write when the status already says exactly the same', async () => {
    const status = { phase: 'Running', readyReplicas: 3, conditions: [available('True')] };
    const client = clientWith(cache(status));
    const live = await client.get<Cache>(CACHE, 'sessions', 'default');

    expect(await patchStatusIfChanged(client, CACHE, live, structuredClone(status))).toBe(false);
    expect(client.writes()).toEqual([]);
  });

  it('does not write when the status holds everything the next one says, and more', async () => {
    // A merge patch would keep `readyReplicas` anyway, so patching `phase` alone changes nothing.
    const client = clientWith(cache({ phase: 'Running', readyReplicas: 3 }));
    const live = await client.get<Cache>(CACHE, 'sessions', 'default');

    expect(await patchStatusIfChanged(client, CACHE, live, { phase: 'Running' })).toBe(false);
    expect(client.writes()).toEqual([]);
  });

  it('compares quantities in canonical form: 1024Mi is the 1Gi the server stored', async () => {
    const client = clientWith(cache({ capacity: { memory: '1Gi', cpu: '500m' } }));
    const live = await client.get<Cache>(CACHE, 'sessions', 'default');

    const next = { capacity: { memory: '1024Mi', cpu: '0.5' } };
    expect(await patchStatusIfChanged(client, CACHE, live, next)).toBe(false);
    expect(client.writes()).toEqual([]);
  });

  it('writes when a condition changes', async () => {
    const client = clientWith(cache({ conditions: [available('False')] }));
    const live = await client.get<Cache>(CACHE, 'sessions', 'default');

    expect(await patchStatusIfChanged(client, CACHE, live, { conditions: [available('True')] })).toBe(true);
    expect((await storedStatus(client))?.conditions).toEqual([available('True')]);
  });

  it('writes when the next status drops a condition the object still holds', async () => {
    // The conditions list is replaced as a whole, so a condition left out is removed only by a write.
    const degraded: Condition = { ...available('True'), type: 'Degraded', reason: 'ServerDown' };
    const client = clientWith(cache({ conditions: [available('True'), degraded] }));
    const live = await client.get<Cache>(CACHE, 'sessions', 'default');

    expect(await patchStatusIfChanged(client, CACHE, live, { conditions: [available('True')] })).toBe(true);
    expect((await storedStatus(client))?.conditions).toEqual([available('True')]);
  });

  it('leaves the conditions alone when the next status says nothing of them, and stays quiet', async () => {
    // A merge patch without `conditions` would keep them: writing would change nothing, again and again.
    const client = clientWith(cache({ phase: 'Running', conditions: [available('True')] }));
    const live = await client.get<Cache>(CACHE, 'sessions', 'default');

    expect(await patchStatusIfChanged(client, CACHE, live, { phase: 'Running' })).toBe(false);
    expect(await patchStatusIfChanged(client, CACHE, live, { phase: 'Failed' })).toBe(true);
    expect((await storedStatus(client))?.conditions).toEqual([available('True')]);
  });

  it('refuses an object without a name before writing anything', async () => {
    const client = clientWith(cache());
    const unnamed: Cache = { ...cache(), metadata: { namespace: 'default' } };

    await expect(patchStatusIfChanged(client, CACHE, unnamed, { phase: 'Running' })).rejects.toThrow(
      'the Cache has no name',
    );
    expect(client.writes()).toEqual([]);
  });
});

describe('patchStatusWithConditionEvents', () => {
  const degraded = (status: Condition['status']): Condition => ({
    type: 'Degraded',
    status,
    reason: status === 'True' ? 'ServerDown' : 'ServersUp',
    message: status === 'True' ? '1 of 3 servers down' : '',
    lastTransitionTime: '2026-01-02T03:04:05Z',
  });
  // Warnings for bad news, nothing for a condition that starts False.
  const eventType: ConditionEventType = (previous, c) =>
    c.status === 'True' ? (c.type === 'Degraded' ? 'Warning' : 'Normal') : previous ? 'Normal' : undefined;

  async function write(before: CacheStatus, next: CacheStatus) {
    const client = clientWith(cache(before));
    const { events, recorded } = recordingEvents();
    const live = await client.get<Cache>(CACHE, 'sessions', 'default');
    const wrote = await patchStatusWithConditionEvents(client, events, CACHE, live, next, eventType);
    await events.flush();
    const said = recorded.map((e) => [e.type, e.reason, e.action, e.note, e.regarding.name]);
    return { wrote, said, status: await storedStatus(client) };
  }

  it('writes the status, then records an event for each condition whose status changed', async () => {
    const { wrote, said, status } = await write(
      { conditions: [available('False'), degraded('False')] },
      { conditions: [available('True'), degraded('True')] },
    );
    expect(wrote).toBe(true);
    expect(status?.conditions).toEqual([available('True'), degraded('True')]);
    expect(said).toEqual([
      ['Normal', 'ReplicasReady', 'Available=True', '', 'sessions'],
      ['Warning', 'ServerDown', 'Degraded=True', '1 of 3 servers down', 'sessions'],
    ]);
  });

  it('asks about new conditions with no previous one, and records none where the policy says none', async () => {
    const { wrote, said } = await write({}, { conditions: [available('True'), degraded('False')] });
    expect(wrote).toBe(true);
    expect(said).toEqual([['Normal', 'ReplicasReady', 'Available=True', '', 'sessions']]);
  });

  it('asks about a condition whose reason changed under the same status', async () => {
    const worse: ConditionEventType = (previous, c) =>
      previous?.status === c.status && c.reason === 'ServerDown' ? 'Warning' : undefined;
    const client = clientWith(cache({ conditions: [{ ...degraded('True'), reason: 'ServerSlow' }] }));
    const { events, recorded } = recordingEvents();
    const live = await client.get<Cache>(CACHE, 'sessions', 'default');
    await patchStatusWithConditionEvents(
      client,
      events,
      CACHE,
      live,
      { conditions: [degraded('True')] },
      worse,
    );
    await events.flush();
    expect(recorded.map((e) => [e.type, e.reason, e.action])).toEqual([
      ['Warning', 'ServerDown', 'Degraded=True'],
    ]);
  });

  it('records nothing for a condition whose status and reason stayed, nor when nothing was written', async () => {
    const moved = await write(
      { phase: 'Pending', conditions: [available('True')] },
      { phase: 'Running', conditions: [{ ...available('True'), message: 'all 3 ready' }] },
    );
    expect(moved).toMatchObject({ wrote: true, said: [] });
    const same = await write({ conditions: [degraded('True')] }, { conditions: [degraded('True')] });
    expect(same).toMatchObject({ wrote: false, said: [] });
  });
});
