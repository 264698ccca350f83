import { setTimeout as delay } from 'node:timers/promises';
import { KubeApiError, type KubeRest, type Query } from './rest.js';
import { endedTooSoon, RetryDelay } from './retry-delay.js';

interface ListResult<T> {
  metadata: { resourceVersion?: string; continue?: string };
  items: T[];
}

export interface ListWatchHandler<T> {
  /** The complete current state, after the initial list and after every relist. */
  sync(items: T[]): void;
  added(item: T): void;
  modified(item: T): void;
  deleted(item: T): void;
}

/**
 * Keeps `handler` in step with a collection until `signal` aborts: list, then watch from the list's
 * resourceVersion, re-watch when the server ends the stream, relist when the version expired (410), and back
 * off a second after any failure. A watch the server ends at once without an event, or one that expires so
 * from the version just listed, backs off as the runtime's reflector does (800 ms doubling to 30 s, from the
 * start again after a watch that worked). An abort ends whatever is in flight (a list, a watch whose answer
 * has not come, a back-off), so it resolves at once. Enough for the harness; the product runtime has its own,
 * fuller loop.
 */
export async function listWatch<T>(
  rest: KubeRest,
  path: string,
  query: Query,
  handler: ListWatchHandler<T>,
  signal: AbortSignal,
): Promise<void> {
  let resourceVersion: string | undefined;
  // The version is the last list's: no watch has delivered an event since.
  let fromList = false;
  const backoff = new RetryDelay();
  while (!signal.aborted) {
    try {
      if (resourceVersion === undefined) {
        const list = await rest.request<ListResult<T>>('GET', path, { query, signal });
        handler.sync(list.items);
        resourceVersion = list.metadata.resourceVersion;
        fromList = true;
      }
      const opened = performance.now();
      let events = 0;
      const error = await rest.watch<T & { metadata?: { resourceVersion?: string } }>(
        path,
        { ...query, resourceVersion, timeoutSeconds: 300 },
        (event) => {
          events++;
          fromList = false;
          resourceVersion = event.object.metadata?.resourceVersion ?? resourceVersion;
          if (event.type === 'ADDED') handler.added(event.object);
          else if (event.type === 'MODIFIED') handler.modified(event.object);
          else if (event.type === 'DELETED') handler.deleted(event.object);
        },
        signal,
      );
      // Expired at once from the version just listed, it would expire again: relisting at once would list and
      // watch as fast as the server answers. After a watch that worked, the relist is at once.
      const short = endedTooSoon(opened, events);
      if (error) resourceVersion = undefined;
      if (short && (!error || fromList)) await delay(backoff.next(), undefined, { signal });
      else if (!short) backoff.reset();
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof KubeApiError && error.status === 410) resourceVersion = undefined;
      await delay(1000, undefined, { signal }).catch(() => undefined);
    }
  }
}
