import { describe, expect, it } from 'vitest';
import { prng } from '../../testing/prng.js';
import { ItemExponentialRateLimiter } from './rate-limiter.js';
import { WorkQueue } from './work-queue.js';

const MAX_CONCURRENT_RECONCILES = 8;
const KEYS = 100;
const PRODUCER_ADDS = 10_000;
/** Most keys per producer burst; distinct within a burst (see `run`). */
const MAX_BURST = 20;
/** How long to wait for the workers to finish once the producer is done, before failing. */
const SETTLE_TIMEOUT_MS = 5_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const nextTask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Outcome {
  producerAdds: number;
  workerAdds: number;
  processed: number;
  overlaps: string[];
  unprocessed: string[];
  finalLen: number;
  finalProcessing: number;
  elapsedMs: number;
}

/**
 * Simulates a controller: workers loop get → short random async work → (sometimes re-add, as a requeue) → done,
 * while a producer adds keys in bursts with random priorities and delays.
 *
 * Every event gets a logical timestamp. A worker stamps the start of its work when its `get` resumes, which can
 * be later than the moment the queue handed the key out. An add of that key in between would be mistaken for
 * one that this processing covers; keys are therefore distinct within a producer burst (bursts are separated
 * by a task boundary, by which time every handed-out key has been stamped), and workers only re-add their own
 * key, before `done`.
 */
async function run(seed: number): Promise<Outcome> {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const keys = Array.from({ length: KEYS }, (_, i) => `ns/object-${i}`);
  const queue = new WorkQueue({
    name: 'property',
    rateLimiter: new ItemExponentialRateLimiter({ baseMs: 1, maxMs: 16 }),
  });

  let clock = 0;
  const lastAdd = new Map<string, number>();
  const lastStart = new Map<string, number>();
  const inFlight = new Set<string>();
  const overlaps: string[] = [];
  let workerAdds = 0;
  let processed = 0;

  const randomAdd = (key: string): void => {
    const roll = random();
    const priority = pick([-1, 0, 0, 0, 1, 5, 10]);
    lastAdd.set(key, ++clock);
    if (roll < 0.15) queue.addAfter(key, Math.floor(random() * 10) + 1, priority);
    else if (roll < 0.2) queue.addRateLimited(key, priority);
    else queue.add(key, { priority });
  };

  const work = async (): Promise<void> => {
    const roll = random();
    if (roll < 0.4) await Promise.resolve();
    else if (roll < 0.8) await nextTask();
    else await sleep(Math.floor(random() * 3));
  };

  const worker = async (): Promise<void> => {
    for (let item = await queue.get(); item; item = await queue.get()) {
      const { key } = item;
      if (inFlight.has(key)) overlaps.push(key);
      inFlight.add(key);
      lastStart.set(key, ++clock);
      processed++;
      await work();
      if (random() < 0.1) {
        workerAdds++;
        randomAdd(key);
      } else {
        queue.forget(key);
      }
      inFlight.delete(key);
      queue.done(key);
    }
  };

  const started = performance.now();
  const workers = Array.from({ length: MAX_CONCURRENT_RECONCILES }, worker);

  for (let added = 0; added < PRODUCER_ADDS; ) {
    // Varying burst sizes and pauses: sometimes the queue backs up, sometimes workers sit waiting in get.
    const size = Math.min(PRODUCER_ADDS - added, 1 + Math.floor(random() * MAX_BURST));
    const burst = new Set<string>();
    while (burst.size < size) burst.add(pick(keys));
    for (const key of burst) randomAdd(key);
    added += burst.size;
    if (random() < 0.3) await sleep(1);
    else await nextTask();
  }

  // Quiescent: nothing waiting or in flight, so nothing can add any more (only workers re-add). A queue that
  // lost track of a key never gets here; the deadline turns that into an assertion failure instead of a hang.
  const deadline = performance.now() + SETTLE_TIMEOUT_MS;
  while ((queue.len() > 0 || queue.processing() > 0) && performance.now() < deadline) await sleep(2);
  const finalLen = queue.len();
  const finalProcessing = queue.processing();
  queue.shutDown();
  await Promise.all(workers);

  return {
    producerAdds: PRODUCER_ADDS,
    workerAdds,
    processed,
    overlaps,
    unprocessed: [...lastAdd].filter(([key, added]) => (lastStart.get(key) ?? 0) < added).map(([key]) => key),
    finalLen,
    finalProcessing,
    elapsedMs: performance.now() - started,
  };
}

describe('WorkQueue under concurrent workers (property)', () => {
  for (const seed of [1, 20_240_601]) {
    it(`never overlaps a key, processes every key after its last add and ends empty (seed ${seed})`, async () => {
      const outcome = await run(seed);
      console.info(
        `seed ${seed}: ${outcome.producerAdds} + ${outcome.workerAdds} adds, ${outcome.processed} processed ` +
          `in ${outcome.elapsedMs.toFixed(0)} ms`,
      );
      expect(outcome.overlaps).toEqual([]);
      expect(outcome.unprocessed).toEqual([]);
      expect(outcome.finalLen).toBe(0);
      expect(outcome.finalProcessing).toBe(0);
      // De-duplication did its job, yet nothing was starved.
      expect(outcome.processed).toBeLessThan(outcome.producerAdds + outcome.workerAdds);
      expect(outcome.processed).toBeGreaterThanOrEqual(KEYS);
    }, 20_000);
  }
});
