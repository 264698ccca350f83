import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { KubeObject } from '../object.js';
import { EVENT_QUEUE_MAX, EventRecorder, type EventSink, type EventsV1Event } from './recorder.js';

const START = Date.parse('2026-01-01T00:00:00Z');

type SinkCall =
  | { op: 'create'; namespace: string; event: EventsV1Event }
  | {
      op: 'patch';
      namespace: string;
      name: string;
      patch: { series: { count: number; lastObservedTime: string } };
    };

/** An in-memory API server for events that records every call. */
class MemorySink implements EventSink {
  readonly calls: SinkCall[] = [];
  readonly stored = new Map<string, EventsV1Event>();
  failCreate: Error | undefined;

  async create(namespace: string, event: EventsV1Event): Promise<EventsV1Event> {
    this.calls.push({ op: 'create', namespace, event });
    if (this.failCreate) throw this.failCreate;
    this.stored.set(`${namespace}/${event.metadata.name}`, event);
    return event;
  }

  async patch(
    namespace: string,
    name: string,
    patch: { series: { count: number; lastObservedTime: string } },
  ): Promise<EventsV1Event> {
    this.calls.push({ op: 'patch', namespace, name, patch });
    const event = this.stored.get(`${namespace}/${name}`);
    if (!event) throw Object.assign(new Error('events.events.k8s.io not found'), { status: 404 });
    const updated = { ...event, series: patch.series };
    this.stored.set(`${namespace}/${name}`, updated);
    return updated;
  }
}

const memcached: KubeObject = {
  apiVersion: 'cache.example.com/v1alpha1',
  kind: 'Memcached',
  metadata: { name: 'cache', namespace: 'team-a', uid: 'uid-1', resourceVersion: '42' },
};

const regarding = {
  apiVersion: 'cache.example.com/v1alpha1',
  kind: 'Memcached',
  name: 'cache',
  namespace: 'team-a',
  uid: 'uid-1',
  resourceVersion: '42',
};

describe('EventRecorder', () => {
  let now: number;
  let sink: MemorySink;
  let errors: Error[];
  let recorder: EventRecorder;

  /** Moves the fake clock and the timers together. */
  const advance = async (ms: number) => {
    now += ms;
    await vi.advanceTimersByTimeAsync(ms);
  };
  /** Lets queued sends run without moving time. */
  const settle = () => vi.advanceTimersByTimeAsync(0);

  beforeEach(() => {
    vi.useFakeTimers({ now: START });
    now = START;
    sink = new MemorySink();
    errors = [];
    recorder = new EventRecorder({
      sink,
      reportingController: 'cache.example.com/memcached-operator',
      reportingInstance: 'memcached-operator-0',
      clock: () => now,
      onError: (e) => errors.push(e),
    });
  });

  afterEach(async () => {
    await recorder.close();
    vi.useRealTimers();
  });

  it('creates an events.k8s.io/v1 event in the background', async () => {
    // WHEN an event is recorded
    const result = recorder.event(
      memcached,
      'Normal',
      'Created',
      'CreateDeployment',
      'created deployment cache',
    );
    // THEN the caller is not blocked and the event is created afterwards
    expect(result).toBeUndefined();
    expect(sink.calls).toStrictEqual([]);
    await settle();
    expect(sink.calls).toStrictEqual([
      {
        op: 'create',
        namespace: 'team-a',
        event: {
          apiVersion: 'events.k8s.io/v1',
          kind: 'Event',
          metadata: { name: expect.stringMatching(/^cache\.[0-9a-f]{16}$/), namespace: 'team-a' },
          eventTime: '2026-01-01T00:00:00.000000Z',
          reportingController: 'cache.example.com/memcached-operator',
          reportingInstance: 'memcached-operator-0',
          action: 'CreateDeployment',
          reason: 'Created',
          regarding,
          note: 'created deployment cache',
          type: 'Normal',
        },
      },
    ]);
    expect(errors).toStrictEqual([]);
  });

  it('aggregates identical events into one series patched at the heartbeat', async () => {
    // GIVEN three identical events, one second apart
    recorder.event(memcached, 'Warning', 'Failed', 'Scale', 'quota exceeded');
    await advance(1_000);
    recorder.event(memcached, 'Warning', 'Failed', 'Scale', 'quota exceeded');
    await advance(1_000);
    recorder.event(memcached, 'Warning', 'Failed', 'Scale', 'quota exceeded');
    await settle();
    // THEN only one event was created so far
    expect(sink.calls.map((c) => c.op)).toStrictEqual(['create']);
    const created = sink.calls[0] as Extract<SinkCall, { op: 'create' }>;
    // WHEN the 30-s heartbeat comes
    await advance(30_000);
    // THEN the series is patched once, with the latest count
    expect(sink.calls.slice(1)).toStrictEqual([
      {
        op: 'patch',
        namespace: 'team-a',
        name: created.event.metadata.name,
        patch: { series: { count: 3, lastObservedTime: '2026-01-01T00:00:02.000000Z' } },
      },
    ]);
    // AND nothing more is sent while nothing happens
    await advance(120_000);
    expect(sink.calls).toHaveLength(2);
  });

  it('patches at most once per heartbeat while an event keeps repeating', async () => {
    recorder.event(memcached, 'Warning', 'Failed', 'Scale', 'quota exceeded');
    for (let i = 0; i < 10; i++) {
      await advance(5_000);
      recorder.event(memcached, 'Warning', 'Failed', 'Scale', 'quota exceeded');
    }
    await settle();
    // 50 s after the first event: the heartbeat started at 5 s fired once, at 35 s (count 7)
    expect(sink.calls.map((c) => (c.op === 'patch' ? c.patch.series.count : c.op))).toStrictEqual([
      'create',
      7,
    ]);
    await recorder.flush();
    expect(sink.calls.map((c) => (c.op === 'patch' ? c.patch.series.count : c.op))).toStrictEqual([
      'create',
      7,
      11,
    ]);
  });

  it('writes the pending count on flush', async () => {
    recorder.event(memcached, 'Normal', 'Synced', 'Reconcile', 'ok');
    recorder.event(memcached, 'Normal', 'Synced', 'Reconcile', 'ok');
    await recorder.flush();
    expect(sink.calls.map((c) => c.op)).toStrictEqual(['create', 'patch']);
    expect(sink.calls[1]).toMatchObject({
      patch: { series: { count: 2, lastObservedTime: '2026-01-01T00:00:00.000000Z' } },
    });
  });

  it('creates separate events for different notes', async () => {
    recorder.event(memcached, 'Normal', 'Scaled', 'Scale', 'scaled to 2');
    recorder.event(memcached, 'Normal', 'Scaled', 'Scale', 'scaled to 3');
    await recorder.flush();
    expect(sink.calls.map((c) => (c.op === 'create' ? c.event.note : c.op))).toStrictEqual([
      'scaled to 2',
      'scaled to 3',
    ]);
  });

  it('creates separate events for different types, reasons, actions and objects', async () => {
    const other: KubeObject = {
      ...memcached,
      metadata: { ...memcached.metadata, name: 'other', uid: 'uid-2' },
    };
    recorder.event(memcached, 'Normal', 'Scaled', 'Scale', 'n');
    recorder.event(memcached, 'Warning', 'Scaled', 'Scale', 'n');
    recorder.event(memcached, 'Normal', 'Resized', 'Scale', 'n');
    recorder.event(memcached, 'Normal', 'Scaled', 'Resize', 'n');
    recorder.event(other, 'Normal', 'Scaled', 'Scale', 'n');
    await recorder.flush();
    expect(sink.calls.map((c) => c.op)).toStrictEqual(['create', 'create', 'create', 'create', 'create']);
  });

  it('starts a new event when the same event comes back after the 6-minute window', async () => {
    recorder.event(memcached, 'Normal', 'Synced', 'Reconcile', 'ok');
    await advance(6 * 60_000);
    recorder.event(memcached, 'Normal', 'Synced', 'Reconcile', 'ok');
    await recorder.flush();
    expect(sink.calls.map((c) => (c.op === 'create' ? c.event.eventTime : c.op))).toStrictEqual([
      '2026-01-01T00:00:00.000000Z',
      '2026-01-01T00:06:00.000000Z',
    ]);
  });

  it('re-creates a series event that is gone', async () => {
    // GIVEN the event was created and then deleted (events have a TTL)
    recorder.event(memcached, 'Normal', 'Synced', 'Reconcile', 'ok');
    await settle();
    sink.stored.clear();
    // WHEN the event repeats and the series is written
    recorder.event(memcached, 'Normal', 'Synced', 'Reconcile', 'ok');
    await recorder.flush();
    // THEN the patch fails with 404 and the event is created again, with its series
    expect(sink.calls.map((c) => c.op)).toStrictEqual(['create', 'patch', 'create']);
    expect(sink.calls[2]).toMatchObject({
      op: 'create',
      event: { series: { count: 2, lastObservedTime: '2026-01-01T00:00:00.000000Z' }, note: 'ok' },
    });
    expect(errors).toStrictEqual([]);
  });

  it('drops events beyond the spam limit and refills one per 300 s', async () => {
    // GIVEN 30 different events about one object at once
    for (let i = 0; i < 30; i++) recorder.event(memcached, 'Normal', 'Step', 'Reconcile', `step ${i}`);
    await settle();
    // THEN 25 are created and 5 dropped
    expect(sink.calls).toHaveLength(25);
    expect(recorder.dropped).toBe(5);
    // AND another object is not limited
    const other: KubeObject = {
      ...memcached,
      metadata: { ...memcached.metadata, name: 'other', uid: 'uid-2' },
    };
    recorder.event(other, 'Normal', 'Step', 'Reconcile', 'step 0');
    await settle();
    expect(sink.calls).toHaveLength(26);
    // WHEN 300 s pass THEN exactly one more event is allowed
    await advance(300_000);
    recorder.event(memcached, 'Normal', 'Step', 'Reconcile', 'step 30');
    recorder.event(memcached, 'Normal', 'Step', 'Reconcile', 'step 31');
    await settle();
    expect(sink.calls).toHaveLength(27);
    expect(recorder.dropped).toBe(6);
  });

  it('drops new events while the queue is full, and takes them again once the API server answers', async () => {
    // GIVEN an API server that does not answer for now
    let answer = () => {};
    const answering = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const sent: string[] = [];
    let drops = 0;
    const r = new EventRecorder({
      sink: {
        async create(_namespace, event) {
          await answering;
          sent.push(event.note);
          return event;
        },
        patch: () => Promise.reject(new Error('unused')),
      },
      reportingController: 'c',
      reportingInstance: 'i',
      clock: () => now,
      onDrop: () => drops++,
    });
    const cache = (i: number): KubeObject => ({
      ...memcached,
      metadata: { ...memcached.metadata, name: `cache-${i}`, uid: `uid-${i}` },
    });
    // WHEN 200 more events than the queue holds are recorded, each about its own object
    for (let i = 0; i < EVENT_QUEUE_MAX + 200; i++)
      r.event(cache(i), 'Normal', 'Step', 'Reconcile', `step ${i}`);
    // THEN the queue holds the first ones and the rest are dropped, each reported as it is
    expect(r.dropped).toBe(200);
    expect(drops).toBe(200);
    // WHEN the API server answers THEN the queued events are sent in order, and new ones are taken again
    answer();
    await r.flush();
    expect(sent).toHaveLength(EVENT_QUEUE_MAX);
    expect(sent.at(-1)).toBe(`step ${EVENT_QUEUE_MAX - 1}`);
    r.event(cache(-1), 'Normal', 'Step', 'Reconcile', 'later');
    await r.close();
    expect(sent.at(-1)).toBe('later');
    expect(r.dropped).toBe(200);
  });

  it('truncates the note to 1024 characters', async () => {
    recorder.event(memcached, 'Warning', 'Failed', 'Reconcile', 'x'.repeat(5000));
    await settle();
    const created = sink.calls[0] as Extract<SinkCall, { op: 'create' }>;
    expect(created.event.note).toStrictEqual('x'.repeat(1024));
  });

  it('records cluster-scoped objects in the default namespace, with a related object', async () => {
    const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', uid: 'uid-n' } };
    recorder.event(node, 'Warning', 'Evicted', 'Evict', 'evicted cache', memcached);
    await settle();
    expect(sink.calls[0]).toMatchObject({
      op: 'create',
      namespace: 'default',
      event: {
        metadata: { namespace: 'default' },
        regarding: { apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'uid-n' },
        related: regarding,
      },
    });
  });

  it('reports failures to onError and never throws', async () => {
    // GIVEN an API server that rejects creates
    sink.failCreate = new Error('forbidden');
    // WHEN events are recorded, one about an object without a name
    expect(() => recorder.event(memcached, 'Normal', 'Synced', 'Reconcile', 'ok')).not.toThrow();
    expect(() => recorder.event({ metadata: {} }, 'Normal', 'Synced', 'Reconcile', 'ok')).not.toThrow();
    await recorder.flush();
    // THEN both failures are reported
    expect(errors.map((e) => [e.name, (e as Error & { code: string }).code])).toStrictEqual([
      ['InvalidEventObjectError', 'EVENT_INVALID_REGARDING'],
      ['EventRecordError', 'EVENT_RECORD_FAILED'],
    ]);
    expect(errors[1]?.cause).toBe(sink.failCreate);
  });

  it('sends sequentially and ignores events after close', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const notes: string[] = [];
    const slow: EventSink = {
      async create(_namespace, event) {
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        notes.push(event.note);
        await new Promise((resolve) => setTimeout(resolve, 10));
        inFlight--;
        return event;
      },
      patch: () => Promise.reject(new Error('unused')),
    };
    const r = new EventRecorder({
      sink: slow,
      reportingController: 'c',
      reportingInstance: 'i',
      clock: () => now,
    });
    for (let i = 0; i < 3; i++) r.event(memcached, 'Normal', 'Step', 'Reconcile', `step ${i}`);
    const closed = r.close();
    await vi.advanceTimersByTimeAsync(100);
    await closed;
    expect(maxInFlight).toBe(1);
    r.event(memcached, 'Normal', 'Step', 'Reconcile', 'late');
    await r.flush();
    expect(notes).toStrictEqual(['step 0', 'step 1', 'step 2']);
  });
});
