import { closeSync, readSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { openFileWithinRoot, resolveWithinRoot, WithinRootError } from '@opkit/oci/within-root';

/**
 * The largest file read from a bundle directory (`manifests/`, `metadata/`), 64 MiB. OLM stages a bundle in one
 * ConfigMap (1 MiB) and the bundle validator refuses a bundle above 1 MiB gzip-compressed, so a file this large
 * would have to compress more than 64:1 to be installable at all — YAML manifests, CRD schemas included, compress
 * about 10:1. opm and operator-sdk set no bound of their own; this one keeps every bundle they can ship, and
 * keeps a huge file from exhausting memory before any other check runs.
 */
export const MAX_BUNDLE_FILE_BYTES = 64 * 1024 * 1024;

/**
 * A bundle file was refused, not read: a symlink leading out of the directory it is read within, something
 * other than a regular file (a device, a FIFO), or a file above the size limit.
 */
export class BundleFileRefusedError extends Error {
  override readonly name: string = 'BundleFileRefusedError';
  readonly code: string = 'OLM_BUNDLE_FILE_REFUSED';

  constructor(
    readonly path: string,
    /** Why, without the path: `not a regular file but a FIFO`. */
    readonly reason: string,
  ) {
    super(`read ${path}: ${reason}`);
  }
}

/** A bundle file was refused by its size; it was not read. */
export class BundleFileTooLargeError extends BundleFileRefusedError {
  override readonly name = 'BundleFileTooLargeError';
  override readonly code = 'OLM_BUNDLE_FILE_TOO_LARGE';

  constructor(
    path: string,
    readonly limit: number,
    size?: number,
  ) {
    super(path, `file ${size === undefined ? '' : `of ${size} bytes `}exceeds the limit of ${limit} bytes`);
  }
}

/** Opens a bundle file for reading as {@link readBundleFile} describes. */
function openBundleFile(path: string, root: string): { fd: number; size: number } {
  try {
    return openFileWithinRoot(root, relative(root, path));
  } catch (error) {
    if (!(error instanceof WithinRootError)) throw error;
    // A directory reads as the file system says it (EISDIR), which readers take for a missing file.
    if (error.code === 'IS_DIRECTORY')
      throw Object.assign(new Error(`read ${path}: ${error.reason}`), { code: 'EISDIR' });
    throw new BundleFileRefusedError(path, error.reason);
  }
}

/**
 * Reads a file of a bundle directory: a regular file, or a symlink leading to one without leaving `root` (by
 * default the directory holding the file); never a device, FIFO or socket. A file larger than `limit` is
 * refused before it is held in memory: its size is checked when opened, and reading stops one byte past the
 * limit should it grow while read.
 *
 * @throws {BundleFileRefusedError} ({@link BundleFileTooLargeError} above the limit) naming the file; the
 *   file-system error when it cannot be read
 */
export function readBundleFile(
  path: string,
  limit: number = MAX_BUNDLE_FILE_BYTES,
  root: string = dirname(path),
): Buffer {
  const { fd, size } = openBundleFile(path, root);
  try {
    if (size > limit) throw new BundleFileTooLargeError(path, limit, size);
    const chunks: Buffer[] = [];
    let total = 0;
    // Read in one buffer of its size, plus the byte that tells it grew.
    const chunkSize = size + 1;
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

/** Reads a bundle file as UTF-8 text, with the size limit and `root` of {@link readBundleFile}. */
export function readBundleText(
  path: string,
  limit: number = MAX_BUNDLE_FILE_BYTES,
  root: string = dirname(path),
): string {
  return readBundleFile(path, limit, root).toString('utf8');
}

/**
 * Whether `path`, below `root`, is a directory to walk into: symlinks are followed only while they stay in
 * `root`, so a link to `/` or to a directory beside the bundle is never walked (what it holds is not the
 * bundle's); `root` itself may be a link, as a user's own `manifests` may be.
 *
 * @returns `'dir'`, `'file'` (anything else to read, which {@link readBundleFile} judges) or `'missing'`
 * @throws {BundleFileRefusedError} when the path leads out of `root`
 */
export function bundleEntryKind(root: string, path: string): 'dir' | 'file' | 'missing' {
  let inside: string | undefined;
  try {
    inside = resolveWithinRoot(root, relative(root, path));
  } catch (error) {
    if (error instanceof WithinRootError) throw new BundleFileRefusedError(path, error.reason);
    throw error;
  }
  if (inside === undefined) {
    throw new BundleFileRefusedError(path, 'a symlink on its path leads out of the directory');
  }
  try {
    return statSync(join(root, inside)).isDirectory() ? 'dir' : 'file';
  } catch {
    return 'missing';
  }
}
