import { type FSWatcher, readFileSync, watch } from 'node:fs';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import type { Logger } from '../log/index.js';
import type { CertificateAndKey } from './certificates.js';

export interface CertWatcherOptions {
  /** What the certificate serves, for messages: `${this.#name}: cannot read …`. @default 'serving' */
  readonly purpose?: string;
  /** The directory of the certificate and its key. */
  readonly certPath: string;
  /** @default 'tls.crt' */
  readonly certName?: string;
  /** @default 'tls.key' */
  readonly certKey?: string;
  /** How often the files are read again besides file-system events, which miss some renames. @default 10000 */
  readonly pollIntervalMs?: number;
  readonly logger?: Logger;
}

/**
 * A serving certificate read from a directory and read again when it changes, as controller-runtime's
 * certwatcher does: a Secret volume is updated by swapping a symlink, cert-manager and OLM rotate certificates
 * in place, and the server must pick them up without a restart. A pair that does not load (a key that does not
 * match, a half-written file) is ignored and the previous one kept until the next change.
 */
export class CertWatcher {
  readonly #certPath: string;
  readonly #keyPath: string;
  readonly #o: CertWatcherOptions;
  readonly #name: string;
  #current: CertificateAndKey;

  /** Reads the pair once; throws, naming the file, when it is missing or does not load. */
  constructor(options: CertWatcherOptions) {
    this.#o = options;
    this.#name = `${options.purpose ?? 'serving'} certificate`;
    this.#certPath = join(options.certPath, options.certName ?? 'tls.crt');
    this.#keyPath = join(options.certPath, options.certKey ?? 'tls.key');
    this.#current = this.#read();
    createSecureContext(this.#current);
  }

  get current(): CertificateAndKey {
    return this.#current;
  }

  #read(): CertificateAndKey {
    const read = (path: string) => {
      try {
        return readFileSync(path, 'utf8');
      } catch (error) {
        throw new Error(`${this.#name}: cannot read ${path}: ${(error as Error).message}`);
      }
    };
    return { cert: read(this.#certPath), key: read(this.#keyPath) };
  }

  /** Checks for a new pair; calls `onChange` with it when it loads. */
  #check(onChange: (pair: CertificateAndKey) => void): void {
    let next: CertificateAndKey;
    try {
      next = this.#read();
      if (next.cert === this.#current.cert && next.key === this.#current.key) return;
      createSecureContext(next);
    } catch (error) {
      this.#o.logger?.warn(`${this.#name} not reloaded; keeping the previous one`, {
        error: (error as Error).message,
      });
      return;
    }
    this.#current = next;
    this.#o.logger?.info(`${this.#name} reloaded`, { path: this.#certPath });
    onChange(next);
  }

  /** Watches until `signal` aborts. */
  watch(signal: AbortSignal, onChange: (pair: CertificateAndKey) => void): void {
    if (signal.aborted) return;
    const check = () => this.#check(onChange);
    let watcher: FSWatcher | undefined;
    try {
      watcher = watch(this.#o.certPath, { persistent: false }, check);
      watcher.on('error', () => watcher?.close());
    } catch {
      // the directory may be replaced later; polling still sees the new files
    }
    const timer = setInterval(check, this.#o.pollIntervalMs ?? 10_000);
    timer.unref();
    signal.addEventListener(
      'abort',
      () => {
        clearInterval(timer);
        watcher?.close();
      },
      { once: true },
    );
  }
}
