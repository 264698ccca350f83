import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../errors/errors.js';
import type { Kind, KubeObject } from '../../object.js';
import {
  bookmark,
  errorEvent,
  statusReply,
  TestingApiServer,
  type WatchEvent,
} from '../../testing/api-server.js';
import { Backoff } from '../retry/backoff.js';
import { Reflector, type ReflectorOptions, type ReflectorSink } from './reflector.js';

const CONFIG_MAP: Kind = { apiVersion: 'v1', kind: 'ConfigMap' };
const COLLECTION = '/api/v1/namespaces/default/configmaps';

function configMap(name: string, resourceVersion: string): KubeObject {
  return { ...CONFIG_MAP, metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion } };
}

const event = (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): WatchEvent => ({
  type,
  object: obj,
});
const label = (o: KubeObject) => `${o.metadata.name}@${o.metadata.resourceVersion}`;

/** Records what the reflector hands over, one readable line per call. */
class RecordingSink implements ReflectorSink<KubeObject> {
  readonly calls: string[] = [];
  replace(items: KubeObject[], namespace: string | undefined): void {
    this.calls.push(`replace ${namespace ?? '*'}: ${items.map(label).join(' ')}`);
  }
  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): void {
    this.calls.push(`${type} ${label(obj)}`);
  }
}

/** A back-off with tiny delays that remembers the delays it handed out. */
class RecordingBackoff extends Backoff {
  readonly delays: number[] = [];
  override next(now?: number): number {
    const delay = super.next(now);
    this.delays.push(delay);
    return delay;
  }
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

let server: TestingApiServer;
let stop: AbortController;
let running: Promise<void> | undefined;

beforeEach(async () => {
  server = await TestingApiServer.start();
  server.setObjects([configMap('a', '1'), configMap('b', '2')], '100');
  stop = new AbortController();
  running = undefined;
});

afterEach(async () => {
  stop.abort();
  await server.close();
  await running;
});

function startReflector(options: Partial<ReflectorOptions> = {}) {
  const sink = new RecordingSink();
  const errors: Error[] = [];
  const backoff = new RecordingBackoff({ initialMs: 1, maxMs: 8 });
  const reflector = new Reflector<KubeObject>(
    {
      client: server.client(),
      type: CONFIG_MAP,
      namespace: 'default',
      backoff,
      onError: (error) => errors.push(error),
      ...options,
    },
    sink,
  );
  running = reflector.run(stop.signal);
  return { reflector, sink, errors, backoff };
}

describe('Reflector list', () => {
  it('GIVEN 5 objects and a page size of 2 WHEN it starts THEN it lists 3 pages, replaces once with all 5, and watches from the list resourceVersion with bookmarks and a 300-600 s timeout', async () => {
    server.setObjects(
      ['a', 'b', 'c', 'd', 'e'].map((n, i) => configMap(n, String(i + 1))),
      '100',
    );
    const { reflector, sink } = startReflector({ pageSize: 2 });

    const watch = await server.nextWatch();

    expect(server.lists.map((r) => [r.path, r.query])).toEqual([
      [COLLECTION, { limit: '2' }],
      [COLLECTION, { limit: '2', continue: '2' }],
      [COLLECTION, { limit: '2', continue: '4' }],
    ]);
    expect(sink.calls).toEqual(['replace default: a@1 b@2 c@3 d@4 e@5']);
    expect(watch.request).toEqual({
      method: 'GET',
      path: COLLECTION,
      query: {
        watch: 'true',
        resourceVersion: '100',
        allowWatchBookmarks: 'true',
        timeoutSeconds: expect.stringMatching(/^\d+$/),
      },
    });
    const timeoutSeconds = Number(watch.request.query.timeoutSeconds);
    expect(timeoutSeconds).toBeGreaterThanOrEqual(300);
    expect(timeoutSeconds).toBeLessThanOrEqual(600);
    expect(reflector.resourceVersion).toBe('100');
    await vi.waitFor(() =>
      expect(reflector.stats).toEqual({ lists: 1, watches: 1, expired: 0, failures: 0 }),
    );
  });

  it('GIVEN the API server answers lists with 500 WHEN it starts THEN it retries with growing back-off until a list succeeds, reporting every failure', async () => {
    for (let i = 0; i < 6; i++) server.reply('list', statusReply(500, 'InternalError'));
    const { reflector, sink, errors, backoff } = startReflector();

    await server.nextWatch();

    expect(server.lists).toHaveLength(7);
    expect(errors).toHaveLength(6);
    for (const error of errors) expect(error).toBeInstanceOf(ApiError);
    expect(errors.map((e) => (e as ApiError).status)).toEqual([500, 500, 500, 500, 500, 500]);
    // Full jitter: each delay lies in [d, 2d) for d = 1, 2, 4, 8 (the cap), 8, 8 ms.
    const bases = [1, 2, 4, 8, 8, 8];
    expect(backoff.delays).toHaveLength(6);
    backoff.delays.forEach((delay, i) => {
      expect(delay).toBeGreaterThanOrEqual(bases[i]!);
      expect(delay).toBeLessThan(2 * bases[i]!);
    });
    expect(sink.calls).toEqual(['replace default: a@1 b@2']);
    await vi.waitFor(() =>
      expect(reflector.stats).toEqual({ lists: 1, watches: 1, expired: 0, failures: 6 }),
    );
  });
});

describe('Reflector watch', () => {
  it('GIVEN an open watch WHEN ADDED, MODIFIED and DELETED arrive (one split across chunks) THEN each reaches the sink in order and advances the resourceVersion', async () => {
    const { reflector, sink } = startReflector();
    const watch = await server.nextWatch();

    watch.send(event('ADDED', configMap('c', '101')));
    const modified = JSON.stringify(event('MODIFIED', configMap('a', '102')));
    watch.write(modified.slice(0, 20));
    await new Promise((resolve) => setTimeout(resolve, 20));
    watch.write(`${modified.slice(20)}\n${JSON.stringify(event('DELETED', configMap('b', '103')))}\n`);

    await vi.waitFor(() => expect(sink.calls).toHaveLength(4));
    expect(sink.calls).toEqual([
      'replace default: a@1 b@2',
      'ADDED c@101',
      'MODIFIED a@102',
      'DELETED b@103',
    ]);
    expect(reflector.resourceVersion).toBe('103');
  });

  it('GIVEN an open watch WHEN a character is split across chunks THEN it arrives whole', async () => {
    const { sink } = startReflector();
    const watch = await server.nextWatch();

    const bytes = Buffer.from(`${JSON.stringify(event('ADDED', configMap('café', '101')))}\n`, 'utf8');
    const cut = bytes.indexOf(Buffer.from('é', 'utf8')) + 1; // between the two bytes of é
    watch.write(bytes.subarray(0, cut));
    await new Promise((resolve) => setTimeout(resolve, 20));
    watch.write(bytes.subarray(cut));

    await vi.waitFor(() => expect(sink.calls).toHaveLength(2));
    expect(sink.calls[1]).toBe('ADDED café@101');
  });

  it('GIVEN an open watch WHEN BOOKMARKs arrive and the stream ends THEN nothing is emitted and the next watch starts from the last bookmark, without a relist', async () => {
    const { reflector, sink, errors } = startReflector();
    const first = await server.nextWatch();

    first.send(bookmark('150'), bookmark('160'));
    first.end();
    const second = await server.nextWatch();

    expect(second.request.query.resourceVersion).toBe('160');
    expect(sink.calls).toEqual(['replace default: a@1 b@2']);
    expect(server.lists).toHaveLength(1);
    expect(errors).toEqual([]);
    await vi.waitFor(() =>
      expect(reflector.stats).toEqual({ lists: 1, watches: 2, expired: 0, failures: 0 }),
    );
  });

  it('GIVEN an open watch WHEN the stream ends normally THEN a new watch starts from the last event resourceVersion, without a relist', async () => {
    const { reflector, sink, errors } = startReflector();
    const first = await server.nextWatch();

    first.send(event('ADDED', configMap('c', '120')));
    first.end();
    const second = await server.nextWatch();

    expect(server.watches.map((r) => r.query.resourceVersion)).toEqual(['100', '120']);
    expect(server.lists).toHaveLength(1);
    expect(sink.calls).toEqual(['replace default: a@1 b@2', 'ADDED c@120']);
    expect(second.request.path).toBe(COLLECTION);
    expect(errors).toEqual([]);
    await vi.waitFor(() =>
      expect(reflector.stats).toEqual({ lists: 1, watches: 2, expired: 0, failures: 0 }),
    );
  });

  it('GIVEN a watch that delivered an event WHEN an ERROR event with code 410 arrives THEN it closes the stream, relists at once and watches from the new list', async () => {
    const { reflector, sink, errors, backoff } = startReflector();
    const first = await server.nextWatch();

    server.setObjects([configMap('a', '1'), configMap('c', '105')], '110');
    first.send(event('ADDED', configMap('c', '101')), errorEvent(410, 'Expired'));
    const second = await server.nextWatch();

    await first.closed;
    expect(server.lists.map((r) => r.query)).toEqual([{ limit: '500' }, { limit: '500' }]);
    expect(second.request.query.resourceVersion).toBe('110');
    expect(sink.calls).toEqual(['replace default: a@1 b@2', 'ADDED c@101', 'replace default: a@1 c@105']);
    expect(errors).toEqual([]);
    expect(backoff.delays).toEqual([]);
    await vi.waitFor(() =>
      expect(reflector.stats).toEqual({ lists: 2, watches: 2, expired: 1, failures: 0 }),
    );
  });

  it('GIVEN a watch that ended WHEN the next watch request is answered 410 Gone THEN it relists and watches from the new list', async () => {
    const { reflector, sink, errors } = startReflector();
    const first = await server.nextWatch();

    server.reply('watch', statusReply(410, 'Expired'));
    server.setObjects([configMap('c', '105')], '110');
    first.send(bookmark('100')); // a watch that worked: one ending without an event backs off
    first.end();
    await server.nextWatch();

    expect(server.watches.map((r) => r.query.resourceVersion)).toEqual(['100', '100', '110']);
    expect(server.lists).toHaveLength(2);
    expect(sink.calls).toEqual(['replace default: a@1 b@2', 'replace default: c@105']);
    expect(errors).toEqual([]);
    await vi.waitFor(() =>
      expect(reflector.stats).toEqual({ lists: 2, watches: 2, expired: 1, failures: 0 }),
    );
  });

  it('GIVEN a watch request answered 500 THEN it is retried with back-off from the same resourceVersion, without a relist', async () => {
    server.reply('watch', statusReply(500, 'InternalError'));
    server.reply('watch', statusReply(500, 'InternalError'));
    const { reflector, errors, backoff } = startReflector();

    await server.nextWatch();

    expect(server.watches.map((r) => r.query.resourceVersion)).toEqual(['100', '100', '100']);
    expect(server.lists).toHaveLength(1);
    expect(errors.map((e) => (e as ApiError).status)).toEqual([500, 500]);
    expect(backoff.delays).toHaveLength(2);
    await vi.waitFor(() =>
      expect(reflector.stats).toEqual({ lists: 1, watches: 1, expired: 0, failures: 2 }),
    );
  });

  it('GIVEN a watch on which the server sends nothing WHEN inactivityTimeoutMs (300 ms) pass THEN the connection is dropped and the watch resumes from the same resourceVersion', async () => {
    const { reflector, errors } = startReflector({ inactivityTimeoutMs: 300 });
    const silent = await server.nextWatch();

    const second = await server.nextWatch();
    const closedAt = await silent.closed;

    expect(closedAt - silent.openedAt).toBeGreaterThanOrEqual(290);
    expect(closedAt - silent.openedAt).toBeLessThan(2_000);
    expect(second.request.query.resourceVersion).toBe('100');
    expect(server.lists).toHaveLength(1);
    expect(errors.map((e) => e.message)).toEqual(['watch silent for 300 ms']);
    await vi.waitFor(() =>
      expect(reflector.stats).toEqual({ lists: 1, watches: 2, expired: 0, failures: 1 }),
    );
  });

  it('GIVEN a watch that receives a bookmark every 50 ms WHEN more than inactivityTimeoutMs (300 ms) pass THEN the connection is kept', async () => {
    const { reflector, errors } = startReflector({ inactivityTimeoutMs: 300 });
    const watch = await server.nextWatch();

    for (let rv = 101; rv <= 110; rv++) {
      watch.send(bookmark(String(rv)));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    expect(await settlesWithin(watch.closed, 0)).toBe(false);
    expect(server.watches).toHaveLength(1);
    expect(errors).toEqual([]);
    expect(reflector.resourceVersion).toBe('110');
  });
});

describe('Reflector short watches', () => {
  it("GIVEN a server that answers every watch 200 and ends it at once THEN it reopens them after client-go's back-off, not in a loop, and reports the streak once", async () => {
    server.watchesToEndAtOnce = Number.POSITIVE_INFINITY;
    const backoff = new RecordingBackoff();
    const started = performance.now();
    const { reflector, errors } = startReflector({ backoff });

    // With client-go's back-off: at 0, after 0.8-1.6 s, then not before 2.4 s. Reopened at once, it asked
    // about 20 times a second.
    await vi.waitFor(() => expect(server.watches.length).toBeGreaterThanOrEqual(2), { timeout: 5_000 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(800);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(server.watches.length).toBeLessThanOrEqual(3);
    expect(backoff.delays[0]).toBeGreaterThanOrEqual(800);
    expect(backoff.delays[1]).toBeGreaterThanOrEqual(1_600);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(
        /^very short watch: the watch of ConfigMap in namespace default ended after \d+ ms without an event$/,
      ),
    ]);
    expect(reflector.stats).toMatchObject({ lists: 1, expired: 0 });
    expect(reflector.stats.failures).toBeLessThanOrEqual(3);
  });

  it('GIVEN watches from a fresh list that expire at once by an ERROR event THEN each counts as a failure and it backs off before relisting, reporting the streak once', async () => {
    const { reflector, errors, backoff } = startReflector();
    for (let i = 0; i < 3; i++) (await server.nextWatch()).send(errorEvent(410, 'Expired'));
    await server.nextWatch();

    // Relisted at once, it would list and watch as fast as the server answers, without a failure counted.
    expect(backoff.delays).toHaveLength(3);
    expect(errors.map((e) => e.message)).toEqual([
      'very short watch: the watch of ConfigMap in namespace default expired at once from the version it listed (fake Expired)',
    ]);
    await vi.waitFor(() =>
      expect(reflector.stats).toEqual({ lists: 4, watches: 4, expired: 3, failures: 3 }),
    );
  });

  it('GIVEN watch requests from a fresh list answered 410 Gone THEN each counts as a failure and it backs off before relisting', async () => {
    for (let i = 0; i < 3; i++) server.reply('watch', statusReply(410, 'Expired'));
    const { reflector, errors, backoff } = startReflector();
    await server.nextWatch();

    expect(backoff.delays).toHaveLength(3);
    expect(errors).toHaveLength(1);
    await vi.waitFor(() =>
      expect(reflector.stats).toEqual({ lists: 4, watches: 1, expired: 3, failures: 3 }),
    );
  });

  it('GIVEN streaks of short watches WHEN a watch that delivers an event comes between them THEN each streak is reported once and the back-off starts over after the good watch', async () => {
    server.watchesToEndAtOnce = 3;
    const { reflector, errors, backoff } = startReflector();
    const good = await server.nextWatch();
    server.watchesToEndAtOnce = 2;
    good.send(bookmark('150'));
    good.end();
    await server.nextWatch();

    expect(errors.map((e) => e.message.slice(0, 16))).toEqual(['very short watch', 'very short watch']);
    // Doubling from 1 ms, capped at 8, jitter up to twice: the fourth delay is back at the first step.
    const steps = backoff.delays.map((d) => Math.floor(Math.log2(d)));
    expect(steps).toEqual([0, 1, 2, 0, 1]);
    expect(server.watches.map((r) => r.query.resourceVersion)).toEqual([
      ...['100', '100', '100', '100'],
      ...['150', '150', '150'],
    ]);
    await vi.waitFor(() =>
      expect(reflector.stats).toEqual({ lists: 1, watches: 7, expired: 0, failures: 5 }),
    );
  });
});

describe('Reflector abort', () => {
  it('GIVEN an open watch WHEN the signal aborts THEN run resolves promptly and the connection is closed', async () => {
    const { errors } = startReflector();
    const watch = await server.nextWatch();

    stop.abort();

    expect(await settlesWithin(running!, 500)).toBe(true);
    expect(await settlesWithin(watch.closed, 500)).toBe(true);
    expect(errors).toEqual([]);
  });

  it('GIVEN a list failure and a long back-off WHEN the signal aborts THEN run resolves promptly', async () => {
    server.reply('list', statusReply(500, 'InternalError'));
    const { errors } = startReflector({ backoff: new Backoff({ initialMs: 60_000 }) });
    await vi.waitFor(() => expect(errors).toHaveLength(1));

    stop.abort();

    expect(await settlesWithin(running!, 500)).toBe(true);
    expect(server.lists).toHaveLength(1);
  });

  it('GIVEN a list request in flight WHEN the signal aborts THEN run resolves promptly without opening a watch', async () => {
    let answer!: () => void;
    const held = new Promise<void>((resolve) => {
      answer = resolve;
    });
    server.reply('list', {
      status: 200,
      body: { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '100' }, items: [] },
      after: held,
    });
    startReflector();
    await vi.waitFor(() => expect(server.lists).toHaveLength(1));

    stop.abort();
    answer();

    expect(await settlesWithin(running!, 1_000)).toBe(true);
    expect(server.watches).toEqual([]);
  });
});
