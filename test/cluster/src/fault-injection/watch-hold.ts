import type { ServerResponse } from 'node:http';

/**
 * How held watch streams are released when a hold ends. Within one stream the bytes always keep their order:
 * Kubernetes delivers a watch's events in resourceVersion order, so reordering them would test something
 * that cannot happen.
 */
export interface WatchRelease {
  /**
   * `together`: every stream at once, so events arrive late and in a burst. `reversed`: stream after stream,
   * the one whose first held event came last going first, so the operator sees events of different streams
   * in another order than the API server made them (e.g. its Deployment's before its custom resource's).
   */
  readonly order: 'together' | 'reversed';
  /** For `reversed`: the time between two streams' releases, for the operator to act on each. @default 250 */
  readonly gapMs?: number;
}

/** One watch stream on its way to the operator: its bytes go straight on, or wait while a hold has it. */
export class WatchStream {
  readonly #res: ServerResponse;
  readonly #waiting: Buffer[] = [];
  #hold: WatchHold | undefined;
  #ended = false;

  constructor(res: ServerResponse) {
    this.#res = res;
  }

  send(chunk: Buffer): void {
    if (!this.#hold) {
      this.#res.write(chunk);
      return;
    }
    this.#waiting.push(chunk);
    this.#hold.noticeHeld(this);
  }

  /** The API server ended the stream: the end, too, waits behind what is held. */
  end(): void {
    this.#ended = true;
    if (!this.#hold) this.#res.end();
  }

  /** From now on its bytes wait until `hold` resumes it (a later hold takes it over). */
  pause(hold: WatchHold): void {
    this.#hold = hold;
    if (this.#waiting.length > 0) hold.noticeHeld(this);
  }

  resume(hold: WatchHold): void {
    if (this.#hold !== hold) return;
    this.#hold = undefined;
    if (this.#res.destroyed) return;
    for (const chunk of this.#waiting.splice(0)) this.#res.write(chunk);
    if (this.#ended) this.#res.end();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One hold of watch streams: the streams it paused, and in which order their first held bytes came. */
export class WatchHold {
  readonly #paused = new Set<WatchStream>();
  /** A Set keeps insertion order: the streams by the arrival of their first held bytes. */
  readonly #byFirstHeld = new Set<WatchStream>();

  add(stream: WatchStream): void {
    this.#paused.add(stream);
    stream.pause(this);
  }

  noticeHeld(stream: WatchStream): void {
    this.#byFirstHeld.add(stream);
  }

  /** Resumes every stream it paused, in the order `release` asks for; settles once the last is resumed. */
  async release(release: WatchRelease): Promise<void> {
    const quiet = [...this.#paused].filter((stream) => !this.#byFirstHeld.has(stream));
    for (const stream of quiet) stream.resume(this);
    if (release.order === 'together') {
      for (const stream of this.#byFirstHeld) stream.resume(this);
      return;
    }
    const streams = [...this.#byFirstHeld].reverse();
    for (const [i, stream] of streams.entries()) {
      if (i > 0) await sleep(release.gapMs ?? 250);
      stream.resume(this);
    }
  }
}
