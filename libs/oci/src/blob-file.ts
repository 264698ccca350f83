import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { pipeline, type Readable, Transform, Writable } from 'node:stream';
import type { Descriptor } from './image.js';

/** The errors a blob's content is refused with; made by whoever can name where it came from. */
export interface BlobRefusals {
  /** More bytes came than the descriptor's size. */
  readonly tooLong: () => Error;
  /** The content ended after `received` bytes, short of the descriptor's size. */
  readonly tooShort: (received: number) => Error;
  /** The content hashes to `actual`, not to the descriptor's digest. */
  readonly mismatch: (actual: string) => Error;
}

/** A blob's content checked as it passes: counted against the descriptor's size and hashed. */
class BlobCheck {
  readonly #descriptor: Pick<Descriptor, 'digest' | 'size'>;
  readonly #refusals: BlobRefusals;
  readonly #hash = createHash('sha256');
  #received = 0;

  constructor(descriptor: Pick<Descriptor, 'digest' | 'size'>, refusals: BlobRefusals) {
    this.#descriptor = descriptor;
    this.#refusals = refusals;
  }

  /** Takes the next bytes; the refusal when they go past the descriptor's size. */
  add(chunk: Buffer): Error | undefined {
    this.#received += chunk.byteLength;
    if (this.#received > this.#descriptor.size) return this.#refusals.tooLong();
    this.#hash.update(chunk);
    return undefined;
  }

  /** At the end of the content: the refusal when it is short or hashes to another digest. */
  finish(): Error | undefined {
    if (this.#received < this.#descriptor.size) return this.#refusals.tooShort(this.#received);
    const actual = `sha256:${this.#hash.digest('hex')}`;
    return actual === this.#descriptor.digest ? undefined : this.#refusals.mismatch(actual);
  }
}

/**
 * A sink that stores a blob at `path`, hashing it as it is written: the bytes go to a temporary sibling file,
 * a byte past the descriptor's size is refused at once, and the file is renamed to `path` only when its size
 * and digest match the descriptor. Refused or abandoned content leaves no file behind.
 */
export class VerifiedBlobFile extends Writable {
  readonly #path: string;
  readonly #temp: string;
  readonly #check: BlobCheck;
  readonly #out: WriteStream;
  #stored = false;

  constructor(path: string, descriptor: Pick<Descriptor, 'digest' | 'size'>, refusals: BlobRefusals) {
    super({ highWaterMark: 1024 * 1024 });
    this.#path = path;
    this.#temp = `${path}.${randomBytes(6).toString('hex')}.partial`;
    this.#check = new BlobCheck(descriptor, refusals);
    this.#out = createWriteStream(this.#temp, { flags: 'wx', mode: 0o644 });
    this.#out.on('error', (err) => this.destroy(err));
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const refused = this.#check.add(chunk);
    if (refused !== undefined) callback(refused);
    else this.#out.write(chunk, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    const refused = this.#check.finish();
    if (refused !== undefined) {
      callback(refused);
      return;
    }
    this.#out.end(() => {
      rename(this.#temp, this.#path).then(() => {
        this.#stored = true;
        callback();
      }, callback);
    });
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (this.#stored) {
      callback(error);
      return;
    }
    this.#out.destroy();
    // Removed once closed, so no write lands after the removal.
    const remove = (): void => {
      rm(this.#temp, { force: true }).then(
        () => callback(error),
        () => callback(error),
      );
    };
    if (this.#out.closed) remove();
    else this.#out.once('close', remove);
  }
}

/**
 * The content of the blob file at `path`, read as a stream and checked as it passes: a byte past the
 * descriptor's size fails the stream at once, and a short or mismatching content fails it at its end, so a
 * reader acts on the bytes as they come and learns before the end whether they were the blob's.
 */
export function readVerifiedBlob(
  path: string,
  descriptor: Pick<Descriptor, 'digest' | 'size'>,
  refusals: BlobRefusals,
): Readable {
  const check = new BlobCheck(descriptor, refusals);
  const verified = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const refused = check.add(chunk);
      callback(refused ?? null, refused === undefined ? chunk : undefined);
    },
    flush(callback) {
      callback(check.finish() ?? null);
    },
  });
  // A failure of either side reaches the stream returned, which is where the reader looks.
  return pipeline(createReadStream(path), verified, () => {});
}
