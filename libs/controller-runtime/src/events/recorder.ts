import { randomBytes } from 'node:crypto';
import type { KubeObject } from '../object.js';

/** `Normal` for expected happenings, `Warning` for ones a human may need to look at. */
export type EventType = 'Normal' | 'Warning';

/** A reference to the object an event is about (`regarding`) or involves (`related`). */
export interface EventObjectReference {
  apiVersion: string;
  kind: string;
  name: string;
  /** Absent for cluster-scoped objects. */
  namespace?: string;
  uid: string;
  resourceVersion?: string;
}

/** How often an event was seen: set once the same event repeats. */
export interface EventSeries {
  count: number;
  /** RFC 3339 with microseconds. */
  lastObservedTime: string;
}

/** An `events.k8s.io/v1` Event, as sent to the API server. */
export interface EventsV1Event {
  apiVersion: 'events.k8s.io/v1';
  kind: 'Event';
  metadata: { name: string; namespace: string };
  /** When the event was first observed, RFC 3339 with microseconds (`2026-01-01T00:00:00.000000Z`). */
  eventTime: string;
  series?: EventSeries;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  regarding: EventObjectReference;
  related?: EventObjectReference;
  note: string;
  type: EventType;
}

/** The API calls the recorder needs; the runtime implements them with its client, tests in memory. */
export interface EventSink {
  /** Creates `event` in `namespace`. */
  create(namespace: string, event: EventsV1Event): Promise<EventsV1Event>;
  /** Updates the series of the event `name` (a merge patch). Should reject with a 404 status if it is gone. */
  patch(
    namespace: string,
    name: string,
    patch: { series: { count: number; lastObservedTime: string } },
  ): Promise<EventsV1Event>;
}

/** Options of an `EventRecorder`. */
export interface EventRecorderOptions {
  sink: EventSink;
  /** The controller's name, e.g. `cache.example.com/memcached-operator`. */
  reportingController: string;
  /** This replica, e.g. `memcached-operator-7d9c-x2k4`. */
  reportingInstance: string;
  /** Milliseconds since the epoch; defaults to `Date.now`. */
  clock?: () => number;
  /** Called with every failure (an `EventRecordError` for API calls); defaults to ignoring them. */
  onError?: (e: Error) => void;
  /** Called for every event dropped (see {@link EventRecorder.dropped}), to count it in a metric. */
  onDrop?: () => void;
}

/** Creating or patching an event failed; the event is lost (events are best effort). */
export class EventRecordError extends Error {
  readonly code = 'EVENT_RECORD_FAILED';
  constructor(
    readonly operation: 'create' | 'patch',
    readonly namespace: string,
    readonly eventName: string,
    options?: ErrorOptions,
  ) {
    const cause = options?.cause;
    super(
      `failed to ${operation} event ${namespace}/${eventName}: ${cause instanceof Error ? cause.message : String(cause)}`,
      options,
    );
    this.name = 'EventRecordError';
  }
}

/** The object an event is about has no name, so the event cannot be named. */
export class InvalidEventObjectError extends Error {
  readonly code = 'EVENT_INVALID_REGARDING';
  constructor() {
    super('cannot record an event about an object without metadata.name');
    this.name = 'InvalidEventObjectError';
  }
}

/** An identical event within this long after the last occurrence joins its series (client-go `finishTime`). */
export const EVENT_SERIES_WINDOW_MS = 6 * 60_000;
/** Series counts are written at most this often. */
export const EVENT_SERIES_HEARTBEAT_MS = 30_000;
/** Events (other than repeats counted in a series) per regarding object, at once. */
export const EVENT_SPAM_BURST = 25;
/** One more event per regarding object is allowed after this long. */
export const EVENT_SPAM_REFILL_MS = 300_000;
/**
 * Events waiting to be sent, at most (client-go's broadcaster queue holds as many). While the API server is that far
 * behind, new events are dropped rather than held in memory without end.
 */
export const EVENT_QUEUE_MAX = 1000;
/** Longest `note` the API server accepts, in bytes. */
export const EVENT_NOTE_MAX_BYTES = 1024;
const MAX_TRACKED = 4096;
const MAX_NAME = 253;

interface SeriesEntry {
  readonly event: EventsV1Event;
  count: number;
  lastObserved: number;
  /** The count is ahead of what the API server has. */
  dirty: boolean;
}

interface Bucket {
  tokens: number;
  last: number;
}

/** RFC 3339 with microseconds, as `metav1.MicroTime` serialises. */
function microTime(ms: number): string {
  const whole = Math.floor(ms);
  const micros = String(Math.floor((ms - whole) * 1000)).padStart(3, '0');
  return new Date(whole).toISOString().replace(/Z$/, `${micros}Z`);
}

/** Cuts `note` to at most `EVENT_NOTE_MAX_BYTES` bytes of UTF-8, on a character boundary. */
function truncateNote(note: string): string {
  if (Buffer.byteLength(note) <= EVENT_NOTE_MAX_BYTES) return note;
  let bytes = 0;
  let end = 0;
  for (const ch of note) {
    bytes += Buffer.byteLength(ch);
    if (bytes > EVENT_NOTE_MAX_BYTES) break;
    end += ch.length;
  }
  return note.slice(0, end);
}

function referenceOf(obj: KubeObject): EventObjectReference {
  const { name, namespace, uid, resourceVersion } = obj.metadata;
  const ref: EventObjectReference = {
    apiVersion: obj.apiVersion ?? '',
    kind: obj.kind ?? '',
    name: name ?? '',
    uid: uid ?? '',
  };
  if (namespace) ref.namespace = namespace;
  if (resourceVersion) ref.resourceVersion = resourceVersion;
  return ref;
}

/** Identifies the object, not its version. */
function objectKeyOf(ref: EventObjectReference | undefined): unknown[] {
  return ref ? [ref.apiVersion, ref.kind, ref.namespace ?? '', ref.name, ref.uid] : [];
}

function isNotFound(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { status?: unknown; statusCode?: unknown; code?: unknown };
  return e.status === 404 || e.statusCode === 404 || e.code === 404;
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Records `events.k8s.io/v1` events, like client-go's `tools/events` recorder behind controller-runtime's
 * `mgr.GetEventRecorder`.
 *
 * - `event()` never throws and never waits: events are queued and sent one at a time.
 * - An identical event (same regarding and related object, type, reason, action, note and reporting controller)
 *   within 6 minutes of its last occurrence is not created again; it joins an `EventSeries` on the existing
 *   event, whose `count` and `lastObservedTime` are patched at most every 30 s (and on `flush()`/`close()`).
 *   If that event is gone (404), it is created again, with its series.
 * - Spam guard: per regarding object, a burst of 25 new events, then one more per 300 s; the rest are dropped
 *   and counted in `dropped`. Repeats joining a series are free: they cost no API call of their own.
 * - At most {@link EVENT_QUEUE_MAX} events wait to be sent; while that many wait (an API server that does not
 *   answer), new events are dropped and counted in `dropped` too.
 * - `note` is cut to 1024 bytes; the event is named `<regarding name>.<16 random hex digits>` in the regarding
 *   object's namespace (`default` for cluster-scoped objects).
 *
 * Failed API calls are reported to `onError` and not retried.
 */
export class EventRecorder {
  readonly #sink: EventSink;
  readonly #reportingController: string;
  readonly #reportingInstance: string;
  readonly #clock: () => number;
  readonly #onError: (e: Error) => void;
  readonly #onDrop: () => void;
  /** Recent events by identity, least recently seen first. */
  readonly #series = new Map<string, SeriesEntry>();
  /** Spam guard token buckets by regarding object, least recently used first. */
  readonly #buckets = new Map<string, Bucket>();
  #tail: Promise<void> = Promise.resolve();
  /** Calls queued or in flight. */
  #pending = 0;
  #heartbeat: ReturnType<typeof setTimeout> | undefined;
  #dropped = 0;
  #closed = false;

  constructor(options: EventRecorderOptions) {
    this.#sink = options.sink;
    this.#reportingController = options.reportingController;
    this.#reportingInstance = options.reportingInstance;
    this.#clock = options.clock ?? Date.now;
    this.#onError = options.onError ?? (() => {});
    this.#onDrop = options.onDrop ?? (() => {});
  }

  /** Events dropped so far, by the spam guard or because {@link EVENT_QUEUE_MAX} were waiting. */
  get dropped(): number {
    return this.#dropped;
  }

  /**
   * Records an event about `regarding`, in the background.
   *
   * @param regarding - the object the event is about.
   * @param type - `Normal` or `Warning`.
   * @param reason - why the action was taken, UpperCamelCase (e.g. `ScalingReplicaSet`).
   * @param action - what was done or failed, UpperCamelCase (e.g. `Scale`).
   * @param note - a human-readable description, cut to 1024 bytes.
   * @param related - a second object involved, if any.
   */
  event(
    regarding: KubeObject,
    type: EventType,
    reason: string,
    action: string,
    note: string,
    related?: KubeObject,
  ): void {
    try {
      this.#record(regarding, type, reason, action, note, related);
    } catch (error) {
      this.#report(error);
    }
  }

  /** Writes pending series counts now and resolves once everything queued so far was sent. */
  async flush(): Promise<void> {
    this.#stopHeartbeat();
    this.#writeSeries();
    let tail: Promise<void>;
    do {
      tail = this.#tail;
      await tail;
    } while (tail !== this.#tail);
  }

  /** Stops recording (later events are ignored), then flushes. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }

  #record(
    regardingObj: KubeObject,
    type: EventType,
    reason: string,
    action: string,
    rawNote: string,
    relatedObj: KubeObject | undefined,
  ): void {
    if (this.#closed) return;
    const regarding = referenceOf(regardingObj);
    if (!regarding.name) throw new InvalidEventObjectError();
    const related = relatedObj ? referenceOf(relatedObj) : undefined;
    const note = truncateNote(rawNote);
    const now = this.#clock();
    this.#expire(now);

    const key = JSON.stringify([
      objectKeyOf(regarding),
      objectKeyOf(related),
      type,
      reason,
      action,
      note,
      this.#reportingController,
    ]);
    const existing = this.#series.get(key);
    if (existing) {
      existing.count++;
      existing.lastObserved = now;
      existing.dirty = true;
      this.#series.delete(key);
      this.#series.set(key, existing);
      this.#startHeartbeat();
      return;
    }

    const objectKey = JSON.stringify(objectKeyOf(regarding));
    if (this.#pending >= EVENT_QUEUE_MAX || !this.#take(objectKey, now)) {
      this.#dropped++;
      this.#onDrop();
      return;
    }

    const namespace = regarding.namespace || 'default';
    const suffix = randomBytes(8).toString('hex');
    const event: EventsV1Event = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: `${regarding.name.slice(0, MAX_NAME - suffix.length - 1)}.${suffix}`, namespace },
      eventTime: microTime(now),
      reportingController: this.#reportingController,
      reportingInstance: this.#reportingInstance,
      action,
      reason,
      regarding,
      ...(related ? { related } : {}),
      note,
      type,
    };
    this.#series.set(key, { event, count: 1, lastObserved: now, dirty: false });
    while (this.#series.size > MAX_TRACKED) this.#evict(this.#series.keys().next().value!);
    this.#enqueue(() => this.#create(event));
  }

  /** Ends series not seen for the window (oldest first), writing any count not yet written. */
  #expire(now: number): void {
    for (const [key, entry] of this.#series) {
      if (now - entry.lastObserved < EVENT_SERIES_WINDOW_MS) break;
      this.#evict(key);
    }
    for (const [key, bucket] of this.#buckets) {
      if (now - bucket.last < EVENT_SPAM_BURST * EVENT_SPAM_REFILL_MS) break;
      this.#buckets.delete(key);
    }
  }

  #evict(key: string): void {
    const entry = this.#series.get(key);
    this.#series.delete(key);
    if (entry?.dirty) this.#writeEntry(entry);
  }

  /** Takes a spam guard token for the object, if one is left. */
  #take(objectKey: string, now: number): boolean {
    const bucket = this.#buckets.get(objectKey) ?? { tokens: EVENT_SPAM_BURST, last: now };
    bucket.tokens = Math.min(EVENT_SPAM_BURST, bucket.tokens + (now - bucket.last) / EVENT_SPAM_REFILL_MS);
    bucket.last = now;
    this.#buckets.delete(objectKey);
    while (this.#buckets.size >= MAX_TRACKED) this.#buckets.delete(this.#buckets.keys().next().value!);
    this.#buckets.set(objectKey, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens--;
    return true;
  }

  #startHeartbeat(): void {
    if (this.#heartbeat !== undefined) return;
    this.#heartbeat = setTimeout(() => {
      this.#heartbeat = undefined;
      this.#writeSeries();
    }, EVENT_SERIES_HEARTBEAT_MS);
    this.#heartbeat.unref?.();
  }

  #stopHeartbeat(): void {
    if (this.#heartbeat === undefined) return;
    clearTimeout(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  #writeSeries(): void {
    for (const entry of this.#series.values()) if (entry.dirty) this.#writeEntry(entry);
  }

  #writeEntry(entry: SeriesEntry): void {
    entry.dirty = false;
    const series: EventSeries = { count: entry.count, lastObservedTime: microTime(entry.lastObserved) };
    this.#enqueue(() => this.#patch(entry.event, series));
  }

  async #create(event: EventsV1Event): Promise<void> {
    try {
      await this.#sink.create(event.metadata.namespace, event);
    } catch (cause) {
      throw new EventRecordError('create', event.metadata.namespace, event.metadata.name, { cause });
    }
  }

  async #patch(event: EventsV1Event, series: EventSeries): Promise<void> {
    const { namespace, name } = event.metadata;
    try {
      await this.#sink.patch(namespace, name, { series });
    } catch (cause) {
      if (!isNotFound(cause)) throw new EventRecordError('patch', namespace, name, { cause });
      await this.#create({ ...event, series });
    }
  }

  #enqueue(task: () => Promise<void>): void {
    this.#pending++;
    this.#tail = this.#tail
      .then(task)
      .catch((error: unknown) => this.#report(error))
      .then(() => {
        this.#pending--;
      });
  }

  #report(error: unknown): void {
    try {
      this.#onError(toError(error));
    } catch {
      // An error handler that throws must not break the caller either.
    }
  }
}
