import { afterEach, describe, expect, it, vi } from 'vitest';
import type { KubeRest } from '../kube/rest.js';
import { WriteWatch } from './write-watch.js';

// The write watch against an API server that refuses every list: it must back off, not retry every 100 ms.

let watch: WriteWatch | undefined;

afterEach(async () => {
  await watch?.stop();
});

describe('WriteWatch', () => {
  it('GIVEN lists that fail THEN it retries them backing off, not in a loop', async () => {
    let lists = 0;
    const refusing: Pick<KubeRest, 'request' | 'watch'> = {
      request: async () => {
        lists++;
        throw new Error('connection refused');
      },
      watch: async () => undefined,
    };
    const started = performance.now();
    watch = new WriteWatch(refusing, 'default', { apiVersion: 'v1', plural: 'configmaps' }, []);

    // With the back-off: at 0, after 0.8-1.6 s, then not before 2.4 s; without it, every 100 ms.
    await vi.waitFor(() => expect(lists).toBeGreaterThanOrEqual(2), { timeout: 5_000 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(800);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(lists).toBeLessThanOrEqual(3);
  });
});
