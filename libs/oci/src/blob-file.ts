import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Writable } from 'node:stream';
import type { Descriptor } from './image.js';

/** The errors a {@link VerifiedBlobFile} refuses content with; made by whoever can name registry and reference. */
export interface BlobRefusals {
  /** More bytes came than the descriptor's size. */
  readonly tooLong: () => Error;
  /** The content ended after `received` bytes, short of the descriptor's size. */
  readonly tooShort: (received: number) => Error;
  /** The content hashes to `actual`, not to the descriptor's digest. */
  readonly mismatch: (actual: string) => Error;
}

/**
 * A sink that stores a blob at `path`, hashing it as it is written: the bytes go to a temporary sibling file,
 * a byte past the descriptor's size is refused at once, and the file is renamed to `path` only when its size
 * and digest match the descriptor. Refused or abandoned content leaves no file behind.
 */
export class VerifiedBlobFile extends Writable {
  readonly #path: string;
  readonly #temp: string;
  readonly #descriptor: Pick<Descriptor, 'digest' | 'size'>;
  readonly #refusals: BlobRefusals;
  readonly #hash = createHash('sha256');
  readonly #out: WriteStream;
  #received = 0;
  #stored = false;

  constructor(path: string, descriptor: Pick<Descriptor, 'digest' | 'size'>, refusals: BlobRefusals) {
    super({ highWaterMark: 1024 * 1024 });
    this.#path = path;
    this.#temp = `${path}.${randomBytes(6).toString('hex')}.partial`;
    this.#descriptor = descriptor;
    this.#refusals = refusals;
    this.#out = createWriteStream(this.#temp, { flags: 'wx', mode: 0o644 });
    this.#out.on('error', (err) => this.destroy(err));
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.#received += chunk.byteLength;
    if (this.#received > this.#descriptor.size) {
      callback(this.#refusals.tooLong());
      return;
    }
    this.#hash.update(chunk);
    this.#out.write(chunk, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.#received < this.#descriptor.size) {
      callback(this.#refusals.tooShort(this.#received));
      return;
    }
    const actual = `sha256:${this.#hash.digest('hex')}`;
    if (actual !== this.#descriptor.digest) {
      callback(this.#refusals.mismatch(actual));
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
