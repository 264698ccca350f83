import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type { DirectClient } from '../../client/direct-client.js';
import { isGone } from '../../errors/errors.js';
import type { Kind, KubeObject } from '../../object.js';
import { Backoff, isShortWatch, sleep } from '../retry/backoff.js';

/** What a reflector feeds: a full state after every (re)list, then single changes. */
export interface ReflectorSink<T extends KubeObject> {
  /** The complete set of objects in the reflector's scope (namespace undefined: all). */
  /** `resourceVersion`: the list's, when the server gave one. */
  replace(items: T[], namespace: string | undefined, resourceVersion?: string): void;
  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T): void;
}

export interface ReflectorOptions {
  readonly client: DirectClient;
  readonly type: Kind;
  /** One namespace, or undefined for all namespaces / cluster-scoped kinds. */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** @default 500 */
  readonly pageSize?: number;
  /**
   * No byte (event or bookmark) for this long means a half-open connection: the watch is dropped and resumed.
   * The server sends a bookmark about once a minute.
   * @default 150000
   */
  readonly inactivityTimeoutMs?: number;
  readonly backoff?: Backoff;
  readonly onError?: (error: Error) => void;
}

interface WatchEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T & { code?: number; reason?: string; message?: string };
}

/** Counters for tests and diagnostics. */
export interface ReflectorStats {
  lists: number;
  watches: number;
  /** Relists forced by an expired resourceVersion (410 Gone). */
  expired: number;
  failures: number;
}

class WatchExpiredError extends Error {}

/**
 * The server (or a proxy) accepted a watch and ended it at once without an event (see isShortWatch), or the
 * watch of a version fresh from a list expired at once (`expired`): relisting at once would expire again.
 */
class ShortWatchError extends Error {
  constructor(
    message: string,
    readonly expired = false,
  ) {
    super(message);
  }
}

/** An object is at most 1.5 MB in etcd; an event line ten times that is no event. */
const MAX_WATCH_EVENT_CHARS = 16 * 1024 * 1024;

/**
 * The list-watch loop behind an informer. Lists in pages, then watches from the list's resourceVersion with
 * bookmarks and a random server-side timeout in [5, 10] min; resumes from the last seen version when the
 * stream ends; relists when that version has expired (410); backs off with jitter after any failure (a watch
 * that ends within a second without an event is one, as is one that expires so from the version just listed) and drops connections that stay silent past the
 * inactivity timeout. It never stops until its signal aborts.
 */
export class Reflector<T extends KubeObject> {
  readonly stats: ReflectorStats = { lists: 0, watches: 0, expired: 0, failures: 0 };
  readonly #o: ReflectorOptions;
  readonly #sink: ReflectorSink<T>;
  readonly #backoff: Backoff;
  #resourceVersion: string | undefined;
  /** The last failure was a short watch: the next ones of the same streak are counted but not reported. */
  #shortWatchStreak = false;
  /** The resourceVersion is the last list's: no watch has delivered an event since. */
  #fromList = false;

  constructor(options: ReflectorOptions, sink: ReflectorSink<T>) {
    this.#o = options;
    this.#sink = sink;
    this.#backoff = options.backoff ?? new Backoff();
  }

  get resourceVersion(): string | undefined {
    return this.#resourceVersion;
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        if (this.#resourceVersion === undefined) await this.#list(signal);
        await this.#watch(signal);
        // The server ended a watch that worked (its timeout): resume at once, with a little jitter against
        // herds, and start the next back-off from its first step.
        this.#shortWatchStreak = false;
        this.#backoff.reset();
        await sleep(Math.random() * 100, signal);
      } catch (error) {
        if (signal.aborted) return;
        const expiredAtOnce = error instanceof ShortWatchError && error.expired;
        if (error instanceof WatchExpiredError || isGone(error) || expiredAtOnce) {
          this.stats.expired++;
          this.#resourceVersion = undefined;
          // A version that expired after a watch that worked is relisted at once.
          if (!expiredAtOnce) continue;
        }
        this.stats.failures++;
        const short = error instanceof ShortWatchError;
        if (!(short && this.#shortWatchStreak)) this.#o.onError?.(error as Error);
        this.#shortWatchStreak = short;
        await sleep(this.#backoff.next(), signal);
      }
    }
  }

  async #list(signal: AbortSignal): Promise<void> {
    const items: T[] = [];
    let continueToken: string | undefined;
    let resourceVersion: string | undefined;
    do {
      if (signal.aborted) return;
      // A 410 on a continue token (the snapshot expired mid-way) propagates and restarts the whole list.
      const page = await this.#o.client.list(this.#o.type, {
        namespace: this.#o.namespace,
        labelSelector: this.#o.labelSelector,
        fieldSelector: this.#o.fieldSelector,
        limit: this.#o.pageSize ?? 500,
        continue: continueToken,
      });
      // The objects of the reflector's kind, as its watch events are: what its sink stores.
      for (const item of page.items) items.push(item as T);
      continueToken = page.metadata.continue || undefined;
      resourceVersion = page.metadata.resourceVersion;
    } while (continueToken);
    this.stats.lists++;
    this.#sink.replace(items, this.#o.namespace, resourceVersion);
    this.#resourceVersion = resourceVersion;
    this.#fromList = true;
  }

  async #watch(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return; // aborted during the list: the listener below would never fire
    const local = new AbortController();
    const abort = () => local.abort();
    signal.addEventListener('abort', abort, { once: true });
    const timeoutSeconds = 300 + Math.floor(Math.random() * 300);
    const started = performance.now();
    let events = 0;
    let res: IncomingMessage | undefined;
    let watchdog: NodeJS.Timeout | undefined;
    const inactivity = this.#o.inactivityTimeoutMs ?? 150_000;
    // Re-armed on every chunk: restarting one timer costs less than a new timer per chunk.
    const arm = () => {
      watchdog =
        watchdog?.refresh() ??
        setTimeout(() => {
          const error = new Error(`watch silent for ${inactivity} ms`);
          // Before the response arrives there is no stream to destroy: abort the request itself.
          if (res) res.destroy(error);
          else local.abort(error);
        }, inactivity);
    };
    try {
      arm();
      res = await this.#o.client.watch(
        this.#o.type,
        {
          namespace: this.#o.namespace,
          labelSelector: this.#o.labelSelector,
          fieldSelector: this.#o.fieldSelector,
          resourceVersion: this.#resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds,
        },
        local.signal,
      );
      this.stats.watches++;
      arm();
      let buffered = '';
      // Chunks split characters as well as lines: decode across them.
      const decoder = new StringDecoder('utf8');
      for await (const chunk of res) {
        arm();
        buffered += decoder.write(chunk as Buffer);
        let newline = buffered.indexOf('\n');
        while (newline >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          newline = buffered.indexOf('\n');
          if (!line.trim()) continue;
          this.#handle(JSON.parse(line) as WatchEvent<T>);
          events++;
          this.#fromList = false;
        }
        if (buffered.length > MAX_WATCH_EVENT_CHARS) {
          throw new Error(
            `watch event longer than ${MAX_WATCH_EVENT_CHARS} characters: the stream is not one of events`,
          );
        }
      }
      if (isShortWatch(started, events) && !signal.aborted) {
        const lasted = Math.round(performance.now() - started);
        throw new ShortWatchError(
          `very short watch: the watch of ${this.#what()} ended after ${lasted} ms without an event`,
        );
      }
    } catch (error) {
      // Expired before any event, the version fresh from a list: the server cannot watch from what it just
      // listed (or a proxy answers so), and relisting at once would ask again many times a second.
      const expired = error instanceof WatchExpiredError || isGone(error);
      if (expired && this.#fromList && isShortWatch(started, events) && !signal.aborted) {
        throw new ShortWatchError(
          `very short watch: the watch of ${this.#what()} expired at once from the version it listed (${(error as Error).message})`,
          true,
        );
      }
      throw error;
    } finally {
      clearTimeout(watchdog);
      signal.removeEventListener('abort', abort);
      res?.destroy();
    }
  }

  #what(): string {
    return `${this.#o.type.kind}${this.#o.namespace ? ` in namespace ${this.#o.namespace}` : ''}`;
  }

  #handle(event: WatchEvent<T>): void {
    if (event.type === 'ERROR') {
      if (event.object.code === 410) throw new WatchExpiredError(event.object.message);
      throw new Error(`watch error: ${event.object.message ?? JSON.stringify(event.object)}`);
    }
    const rv = event.object.metadata?.resourceVersion;
    if (event.type !== 'BOOKMARK') this.#sink.apply(event.type, event.object);
    if (rv) this.#resourceVersion = rv;
  }
}
