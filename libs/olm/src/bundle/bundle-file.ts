import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/**
 * The largest file read from a bundle directory (`manifests/`, `metadata/`), 64 MiB. OLM stages a bundle in one
 * ConfigMap (1 MiB) and the bundle validator refuses a bundle above 1 MiB gzip-compressed, so a file this large
 * would have to compress more than 64:1 to be installable at all — YAML manifests, CRD schemas included, compress
 * about 10:1. opm and operator-sdk set no bound of their own; this one keeps every bundle they can ship, and
 * keeps a huge file from exhausting memory before any other check runs.
 */
export const MAX_BUNDLE_FILE_BYTES = 64 * 1024 * 1024;

/** A bundle file was refused by its size; it was not read. */
export class BundleFileTooLargeError extends Error {
  override readonly name = 'BundleFileTooLargeError';
  readonly code = 'OLM_BUNDLE_FILE_TOO_LARGE';

  /** Why, without the path: `file of 70000000 bytes exceeds the limit of 67108864 bytes`. */
  readonly reason: string;

  constructor(
    readonly path: string,
    readonly limit: number,
    size?: number,
  ) {
    const reason = `file ${size === undefined ? '' : `of ${size} bytes `}exceeds the limit of ${limit} bytes`;
    super(`read ${path}: ${reason}`);
    this.reason = reason;
  }
}

/**
 * Reads a file of a bundle directory, refusing one larger than `limit` before holding it in memory: its size
 * is checked when opened, and reading stops one byte past the limit for files whose size is not known ahead
 * (devices, pipes) or that grow while read.
 *
 * @throws {BundleFileTooLargeError} above the limit; the file-system error when it cannot be read
 */
export function readBundleFile(path: string, limit: number = MAX_BUNDLE_FILE_BYTES): Buffer {
  const fd = openSync(path, 'r');
  try {
    const stats = fstatSync(fd);
    if (stats.size > limit) throw new BundleFileTooLargeError(path, limit, stats.size);
    const chunks: Buffer[] = [];
    let total = 0;
    // A regular file is read in one buffer of its size, plus the byte that tells it grew.
    const chunkSize = stats.isFile() ? stats.size + 1 : 64 * 1024;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(chunkSize, limit + 1 - total)));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
      total += n;
      if (total > limit) throw new BundleFileTooLargeError(path, limit);
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** Reads a bundle file as UTF-8 text, with the size limit of {@link readBundleFile}. */
export function readBundleText(path: string, limit: number = MAX_BUNDLE_FILE_BYTES): string {
  return readBundleFile(path, limit).toString('utf8');
}
