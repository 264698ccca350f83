import { describe, expect, it } from 'vitest';
import { FakeClock } from './clock.js';
import { WorkQueueOptionError } from './errors.js';
import type { UnfinishedWork, WorkQueueMetrics } from './metrics.js';
import { ItemExponentialRateLimiter } from './rate-limiter.js';
import { type QueueItem, WorkQueue } from './work-queue.js';

/** Lets every pending promise callback run. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Whether `promise` has settled, after letting pending callbacks run. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => {
    settled = true;
  });
  await flush();
  return settled;
}

function setup(options: { metrics?: WorkQueueMetrics } = {}): { clock: FakeClock; queue: WorkQueue } {
  const clock = new FakeClock();
  return { clock, queue: new WorkQueue({ name: 'test', clock, ...options }) };
}

/** Takes every ready key (marking each done right away), in the order the queue hands them out. */
async function drainKeys(queue: WorkQueue): Promise<string[]> {
  const keys: string[] = [];
  while (queue.len() > 0) {
    const item = await queue.get();
    if (!item) break;
    keys.push(item.key);
    queue.done(item.key);
  }
  return keys;
}

class RecordingMetrics implements WorkQueueMetrics {
  adds = 0;
  retries = 0;
  readonly depths = new Map<number, number>();
  readonly latencies: number[] = [];
  readonly durations: number[] = [];
  unfinishedWork: (() => UnfinishedWork) | undefined;

  add(): void {
    this.adds++;
  }
  depth(priority: number, delta: number): void {
    this.depths.set(priority, (this.depths.get(priority) ?? 0) + delta);
  }
  queueLatencySeconds(s: number): void {
    this.latencies.push(s);
  }
  workDurationSeconds(s: number): void {
    this.durations.push(s);
  }
  retry(): void {
    this.retries++;
  }
  unfinished(state: () => UnfinishedWork): void {
    this.unfinishedWork = state;
  }
}

describe('WorkQueue', () => {
  describe('de-duplication', () => {
    it('hands out a key added several times only once', async () => {
      const { queue } = setup();
      queue.add('a');
      queue.add('a');
      queue.add('a');
      expect(queue.len()).toBe(1);
      expect(await queue.get()).toEqual({ key: 'a', priority: 0 });
      expect(queue.len()).toBe(0);
      expect(await isSettled(queue.get())).toBe(false);
    });

    it('keeps the highest priority of all adds', async () => {
      const { queue } = setup();
      queue.add('a', { priority: 1 });
      queue.add('a', { priority: 5 });
      queue.add('a', { priority: 3 });
      queue.add('b', { priority: 4 });
      expect(await queue.get()).toEqual({ key: 'a', priority: 5 });
    });

    it('keeps the earliest ready time of all adds', async () => {
      const { clock, queue } = setup();
      queue.addAfter('a', 100);
      queue.addAfter('a', 10);
      queue.addAfter('a', 50);
      const got = queue.get();
      clock.advance(9);
      expect(await isSettled(got)).toBe(false);
      clock.advance(1);
      expect(await got).toEqual({ key: 'a', priority: 0 });
      expect(queue.len()).toBe(0);
    });

    it('makes a delayed key ready at once when it is added without delay', async () => {
      const { queue } = setup();
      queue.addAfter('a', 1_000);
      queue.add('a');
      expect(await queue.get()).toEqual({ key: 'a', priority: 0 });
    });

    it('keeps a priority raised while the key was delayed', async () => {
      const { clock, queue } = setup();
      queue.addAfter('a', 10, 1);
      queue.addAfter('a', 20, 7);
      queue.add('b', { priority: 3 });
      clock.advance(10);
      expect(await queue.get()).toEqual({ key: 'a', priority: 7 });
    });
  });

  describe('keys being processed', () => {
    it('never hands a key in flight to a second caller', async () => {
      const { queue } = setup();
      queue.add('a');
      expect((await queue.get())?.key).toBe('a');
      queue.add('a');
      const second = queue.get();
      expect(await isSettled(second)).toBe(false);
      expect(queue.len()).toBe(1);
      expect(queue.processing()).toBe(1);
      queue.done('a');
      expect(await second).toEqual({ key: 'a', priority: 0 });
    });

    it('hands a key re-added during processing out again after done, once however many adds', async () => {
      const { queue } = setup();
      queue.add('a');
      await queue.get();
      queue.add('a');
      queue.add('a', { priority: 2 });
      queue.add('a');
      queue.done('a');
      expect(await queue.get()).toEqual({ key: 'a', priority: 2 });
      queue.done('a');
      expect(await isSettled(queue.get())).toBe(false);
      expect(queue.len()).toBe(0);
    });

    it('lets other keys through while one is in flight and re-added', async () => {
      const { queue } = setup();
      queue.add('a', { priority: 9 });
      await queue.get();
      queue.add('a', { priority: 9 });
      queue.add('b');
      expect(await queue.get()).toEqual({ key: 'b', priority: 0 });
    });

    it('waits for both the delay and done when a key in flight is re-added with a delay', async () => {
      const { clock, queue } = setup();
      queue.add('a');
      await queue.get();
      queue.addAfter('a', 10);
      const next = queue.get();
      clock.advance(10);
      expect(await isSettled(next)).toBe(false);
      queue.done('a');
      expect(await next).toEqual({ key: 'a', priority: 0 });
    });

    it('ignores done for a key that is not in flight', async () => {
      const { queue } = setup();
      queue.add('a');
      queue.done('a');
      queue.done('b');
      expect(queue.len()).toBe(1);
      expect(queue.processing()).toBe(0);
      expect((await queue.get())?.key).toBe('a');
    });
  });

  describe('ordering', () => {
    it('hands out higher priorities first', async () => {
      const { queue } = setup();
      queue.add('low', { priority: -1 });
      queue.add('default');
      queue.add('high', { priority: 10 });
      queue.add('mid', { priority: 5 });
      expect(await drainKeys(queue)).toEqual(['high', 'mid', 'default', 'low']);
    });

    it('is FIFO within a priority, a re-add keeping the original place', async () => {
      const { queue } = setup();
      for (const key of ['c', 'a', 'b']) queue.add(key);
      queue.add('c');
      expect(await drainKeys(queue)).toEqual(['c', 'a', 'b']);
    });

    it('orders delayed keys by the time they became ready', async () => {
      const { clock, queue } = setup();
      queue.addAfter('late', 50);
      queue.addAfter('early', 30);
      clock.advance(20);
      queue.add('now');
      clock.advance(40);
      expect(await drainKeys(queue)).toEqual(['now', 'early', 'late']);
    });

    it('puts a delayed key that became ready ahead of lower priorities', async () => {
      const { clock, queue } = setup();
      queue.add('waiting', { priority: 0 });
      queue.addAfter('retry', 10, 1);
      clock.advance(10);
      expect(await drainKeys(queue)).toEqual(['retry', 'waiting']);
    });
  });

  describe('delays', () => {
    it('does not hand out a delayed key before its time', async () => {
      const { clock, queue } = setup();
      queue.addAfter('a', 100);
      const got = queue.get();
      clock.advance(99);
      expect(await isSettled(got)).toBe(false);
      clock.advance(1);
      expect(await got).toEqual({ key: 'a', priority: 0 });
    });

    it('counts delayed keys in len', () => {
      const { queue } = setup();
      queue.add('a');
      queue.addAfter('b', 100);
      expect(queue.len()).toBe(2);
    });

    it('keeps a single timer, for the earliest deadline', async () => {
      const { clock, queue } = setup();
      for (let i = 0; i < 100; i++) queue.addAfter(`key-${i}`, 1_000 - i * 5);
      expect(clock.pendingTimers).toBe(1);
      queue.addAfter('soon', 1);
      expect(clock.pendingTimers).toBe(1);
      clock.advance(1);
      expect((await queue.get())?.key).toBe('soon');
      expect(clock.pendingTimers).toBe(1);
      clock.advance(1_000);
      expect(clock.pendingTimers).toBe(0);
      expect(queue.len()).toBe(100);
    });

    it('delays a rate-limited add by the back-off, which grows per key until forget', async () => {
      const { clock, queue } = setup();
      const readyAfter = async (key: string): Promise<number> => {
        const start = clock.now();
        const got = queue.get();
        while (!(await isSettled(got))) clock.advance(1);
        queue.done(key);
        return clock.now() - start;
      };
      queue.addRateLimited('a');
      expect(await readyAfter('a')).toBe(5);
      queue.addRateLimited('a');
      expect(await readyAfter('a')).toBe(10);
      queue.addRateLimited('a');
      expect(await readyAfter('a')).toBe(20);
      expect(queue.numRequeues('a')).toBe(3);
      queue.forget('a');
      expect(queue.numRequeues('a')).toBe(0);
      queue.addRateLimited('a');
      expect(await readyAfter('a')).toBe(5);
    });

    it('uses the sooner of afterMs and the back-off when both are given', async () => {
      const clock = new FakeClock();
      const rateLimiter = new ItemExponentialRateLimiter({ baseMs: 100 });
      const queue = new WorkQueue({ name: 'test', clock, rateLimiter });
      queue.add('a', { afterMs: 30, rateLimited: true });
      queue.add('b', { afterMs: 300, rateLimited: true });
      clock.advance(30);
      await expect(queue.get()).resolves.toEqual({ key: 'a', priority: 0 });
      const b = queue.get();
      clock.advance(69);
      expect(await isSettled(b)).toBe(false);
      clock.advance(1);
      expect(await b).toEqual({ key: 'b', priority: 0 });
    });
  });

  describe('waiters', () => {
    it('serves concurrent waiters distinct keys, in the order they called get', async () => {
      const { queue } = setup();
      const waiters = [queue.get(), queue.get(), queue.get()];
      queue.add('a');
      queue.add('a');
      queue.add('b');
      queue.add('c');
      expect((await Promise.all(waiters)).map((item) => item?.key)).toEqual(['a', 'b', 'c']);
      expect(queue.processing()).toBe(3);
    });

    it('releases an aborted waiter with undefined, without taking a key', async () => {
      const { queue } = setup();
      const controller = new AbortController();
      const aborted = queue.get({ signal: controller.signal });
      const other = queue.get();
      controller.abort();
      expect(await aborted).toBeUndefined();
      queue.add('a');
      expect(await other).toEqual({ key: 'a', priority: 0 });
      expect(await queue.get({ signal: controller.signal })).toBeUndefined();
    });
  });

  describe('shutdown', () => {
    it('resolves every waiter with undefined and ignores later adds', async () => {
      const { queue } = setup();
      const waiters = [queue.get(), queue.get()];
      queue.shutDown();
      expect(await Promise.all(waiters)).toEqual([undefined, undefined]);
      expect(queue.isShutDown).toBe(true);
      queue.add('a');
      queue.addRateLimited('b');
      expect(queue.len()).toBe(0);
      expect(queue.numRequeues('b')).toBe(0);
      expect(await queue.get()).toBeUndefined();
    });

    it('drops waiting keys and their timer', async () => {
      const { clock, queue } = setup();
      queue.add('a');
      queue.addAfter('b', 10);
      queue.shutDown();
      expect(queue.len()).toBe(0);
      expect(clock.pendingTimers).toBe(0);
      expect(await queue.get()).toBeUndefined();
    });

    it('still accepts done for keys in flight', async () => {
      const { queue } = setup();
      queue.add('a');
      await queue.get();
      queue.shutDown();
      queue.done('a');
      expect(queue.processing()).toBe(0);
    });

    it('with drain, keeps handing out ready keys and resolves once all in flight are done', async () => {
      const { clock, queue } = setup();
      queue.add('a');
      queue.add('b');
      queue.addAfter('delayed', 10);
      await queue.get();
      queue.add('a');
      let drained = false;
      const drain = queue.shutDownWithDrain().then(() => {
        drained = true;
      });
      expect(queue.isShutDown).toBe(true);
      expect(queue.len()).toBe(2);
      queue.add('c');
      expect((await queue.get())?.key).toBe('b');
      const again = queue.get();
      queue.done('b');
      await flush();
      expect(drained).toBe(false);
      queue.done('a');
      expect(await again).toEqual({ key: 'a', priority: 0 });
      const last = queue.get();
      clock.advance(10);
      await flush();
      expect(drained).toBe(false);
      queue.done('a');
      await drain;
      expect(await last).toBeUndefined();
      expect(await queue.get()).toBeUndefined();
      expect(queue.len()).toBe(0);
    });

    it('with drain, resolves at once when nothing is waiting or in flight', async () => {
      const { queue } = setup();
      const waiter = queue.get();
      await queue.shutDownWithDrain();
      expect(await waiter).toBeUndefined();
    });

    it('with drain followed by shutDown, drops the ready keys but still waits for the ones in flight', async () => {
      const { queue } = setup();
      queue.add('a');
      queue.add('b');
      await queue.get();
      const drain = queue.shutDownWithDrain();
      queue.shutDown();
      expect(queue.len()).toBe(0);
      expect(await isSettled(drain)).toBe(false);
      queue.done('a');
      await drain;
    });
  });

  describe('metrics', () => {
    it('reports adds, depth per priority, latency, work duration and retries', async () => {
      const metrics = new RecordingMetrics();
      const { clock, queue } = setup({ metrics });
      queue.add('a', { priority: 1 });
      queue.add('a', { priority: 2 });
      queue.addAfter('b', 100);
      queue.addRateLimited('c');
      expect(metrics.adds).toBe(1);
      expect(metrics.retries).toBe(2);
      expect(Object.fromEntries(metrics.depths)).toEqual({ 1: 0, 2: 1 });

      clock.advance(250);
      expect(metrics.adds).toBe(3);
      expect(Object.fromEntries(metrics.depths)).toEqual({ 0: 2, 1: 0, 2: 1 });

      const item = (await queue.get()) as QueueItem;
      clock.advance(1_500);
      queue.done(item.key);
      expect(metrics.latencies).toEqual([0.25]);
      expect(metrics.durations).toEqual([1.5]);
      expect(metrics.depths.get(2)).toBe(0);

      queue.shutDown();
      expect([...metrics.depths.values()].every((depth) => depth === 0)).toBe(true);
    });

    it('measures queue latency from when a delayed key became ready', async () => {
      const metrics = new RecordingMetrics();
      const { clock, queue } = setup({ metrics });
      queue.addAfter('a', 100);
      clock.advance(300);
      await queue.get();
      expect(metrics.latencies).toEqual([0.2]);
    });

    it('registers a getter for the work in flight', async () => {
      const metrics = new RecordingMetrics();
      const { clock, queue } = setup({ metrics });
      queue.add('a');
      queue.add('b');
      await queue.get();
      clock.advance(2_000);
      await queue.get();
      clock.advance(1_000);
      expect(metrics.unfinishedWork?.()).toEqual({ unfinishedSeconds: 4, longestRunningSeconds: 3 });
      queue.done('a');
      queue.done('b');
      expect(metrics.unfinishedWork?.()).toEqual({ unfinishedSeconds: 0, longestRunningSeconds: 0 });
    });
  });

  it('rejects a non-finite priority or delay', () => {
    const { queue } = setup();
    expect(() => queue.add('a', { priority: Number.NaN })).toThrow(WorkQueueOptionError);
    expect(() => queue.addAfter('a', Number.POSITIVE_INFINITY)).toThrow(
      expect.objectContaining({ code: 'ERR_WORK_QUEUE_OPTION' }),
    );
    expect(queue.len()).toBe(0);
  });
});
