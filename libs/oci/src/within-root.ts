// Paths inside a directory tree that came from elsewhere (an unpacked image, a catalog or bundle directory),
// resolved the way the kernel resolves them, so that no symlink, however chained, takes a reader or a writer
// out of the tree.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  type Stats,
} from 'node:fs';
import { join, resolve } from 'node:path';

/** How many symlinks one resolution may follow, as Linux's `MAXSYMLINKS`. */
const MAX_LINKS = 40;

/** The longest path the kernel resolves, as Linux's `PATH_MAX`: a longer one could not be opened anyway. */
const PATH_MAX = 4096;

/** Why a path inside a tree was refused; `reason` says it without the path, for the caller to name the file. */
export class WithinRootError extends Error {
  override readonly name = 'WithinRootError';

  constructor(
    readonly code:
      | 'OUTSIDE_ROOT'
      | 'NOT_REGULAR_FILE'
      | 'IS_DIRECTORY'
      | 'LINK_LOOP'
      | 'TOO_LARGE'
      | 'NAME_TOO_LONG',
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** Options of {@link resolveWithinRoot}. */
export interface ResolveOptions {
  /** Follow a symlink in the last component too (what opening the path does). Default `true`. */
  readonly followLast?: boolean;
}

/**
 * Where `path` (relative to `root`, `/`-separated) leads on disk: every symlink on the way is read and
 * followed, chains included, as the kernel would; `..` climbs from where the links led, not from where the path
 * says. Components that do not exist yet are taken as written.
 *
 * @returns the path relative to `root` with no symlink left in it (`''` for the root itself), or `undefined`
 *   when it leaves `root`: through `..`, an absolute path, or an absolute symlink target naming another place
 * @throws WithinRootError (`LINK_LOOP`) after 40 symlinks, (`NAME_TOO_LONG`) when the path resolved so far
 *   grows past `PATH_MAX` (4,096 bytes), as the kernel's `ENAMETOOLONG`
 */
export function resolveWithinRoot(
  root: string,
  path: string,
  options: ResolveOptions = {},
): string | undefined {
  if (path.startsWith('/') || path.includes('\0')) return undefined;
  const followLast = options.followLast ?? true;
  // The path resolved so far, kept as one string and the length it had before each component, so that each
  // step costs its own component and not the whole path again (a path of many components stays linear).
  let resolved = '';
  const lengths: number[] = [];
  const pending: string[] = [];
  // How many of `pending` name something (not `''` or `.`): the component popped is the last when none is left.
  let named = 0;
  const push = (components: string): void => {
    const parts = components.split('/');
    for (let i = parts.length - 1; i >= 0; i -= 1) {
      const part = parts[i] as string;
      if (part === '' || part === '.') continue;
      pending.push(part);
      named += 1;
    }
  };
  push(path);
  let links = 0;
  while (pending.length > 0) {
    const name = pending.pop() as string;
    named -= 1;
    if (name === '..') {
      const before = lengths.pop();
      if (before === undefined) return undefined;
      resolved = resolved.slice(0, before);
      continue;
    }
    const here = resolved === '' ? name : `${resolved}/${name}`;
    if (Buffer.byteLength(here) > PATH_MAX) {
      throw new WithinRootError('NAME_TOO_LONG', `path longer than ${PATH_MAX} bytes`);
    }
    const last = named === 0;
    const stats = lstatOrUndefined(join(root, here));
    if (stats?.isSymbolicLink() && (!last || followLast)) {
      links += 1;
      if (links > MAX_LINKS) throw new WithinRootError('LINK_LOOP', 'too many levels of symbolic links');
      const target = readlinkSync(join(root, here));
      if (target.startsWith('/')) {
        // An absolute target is a path of this machine: followed only when it names a place in the tree.
        const inside = insideRoot(root, target);
        if (inside === undefined) return undefined;
        resolved = '';
        lengths.length = 0;
        push(inside);
        continue;
      }
      // The target replaces the link's name, resolved from the directory holding the link.
      push(target);
      continue;
    }
    lengths.push(resolved.length);
    resolved = here;
  }
  return resolved;
}

/** `target` (absolute) relative to the root, when it starts with the root's path (as given or real). */
function insideRoot(root: string, target: string): string | undefined {
  for (const base of new Set([resolve(root), realpathOrSelf(resolve(root))])) {
    if (target === base) return '';
    if (target.startsWith(`${base}/`)) return target.slice(base.length + 1);
  }
  return undefined;
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    // Missing, or below something that is not a directory: nothing there to follow.
    return undefined;
  }
}

/** What a file that is not a regular file is, in words. */
export function fileKind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isSymbolicLink()) return 'a symlink';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  return 'a regular file';
}

/**
 * Opens a regular file of the tree under `root` for reading: symlinks are followed only while they stay inside
 * `root`, and devices, FIFOs and sockets are refused before they are opened (a link to `/dev/zero` would never
 * end, a FIFO would block).
 *
 * @returns the open descriptor (the caller closes it) and its size
 * @throws WithinRootError (`OUTSIDE_ROOT`, `IS_DIRECTORY`, `NOT_REGULAR_FILE`, `LINK_LOOP`), or the file
 *   system's error (`ENOENT`, `EACCES`)
 */
export function openFileWithinRoot(root: string, path: string): { fd: number; size: number } {
  const resolved = resolveWithinRoot(root, path);
  if (resolved === undefined) {
    throw new WithinRootError('OUTSIDE_ROOT', 'a symlink on its path leads out of the directory');
  }
  const full = join(root, resolved);
  refuseUnlessFile(lstatSync(full));
  // No link is left to follow and nothing may block: O_NOFOLLOW and O_NONBLOCK guard against a swap since.
  const fd = openSync(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(fd);
    refuseUnlessFile(stats);
    return { fd, size: stats.size };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function refuseUnlessFile(stats: Stats): void {
  if (stats.isFile()) return;
  if (stats.isDirectory()) throw new WithinRootError('IS_DIRECTORY', 'is a directory');
  throw new WithinRootError('NOT_REGULAR_FILE', `not a regular file but ${fileKind(stats)}`);
}

/**
 * Reads a regular file of the tree under `root` as {@link openFileWithinRoot} opens it, refusing one larger
 * than `maxBytes` before reading it, and stopping one byte past the limit should it grow while read.
 *
 * @throws WithinRootError as {@link openFileWithinRoot}, or `TOO_LARGE`; the file system's error
 */
export function readFileWithinRoot(root: string, path: string, maxBytes: number): Buffer {
  return readWithin(root, path, maxBytes, () => undefined);
}

/**
 * Reads files of a tree as {@link readFileWithinRoot} does, each into the one buffer it keeps, grown to the
 * largest file read: for a caller done with a file's bytes before it reads the next, such as a loader decoding a
 * directory file after file, which then holds one file's bytes at a time instead of a buffer per file until the
 * garbage collector frees them.
 */
export class FileWithinRootReader {
  #buffer: Buffer | undefined;
  #piece: Buffer | undefined;

  constructor(
    readonly root: string,
    readonly maxBytes: number,
  ) {}

  /**
   * The bytes of `path`: a view of the reader's buffer, which the next read overwrites.
   *
   * @throws as {@link readFileWithinRoot}
   */
  read(path: string): Buffer {
    return readWithin(this.root, path, this.maxBytes, (length) => {
      // Its own memory, never a slice of Node's shared pool, and no larger than the largest file needs.
      if (this.#buffer === undefined || this.#buffer.length < length) {
        this.#buffer = Buffer.allocUnsafeSlow(length);
      }
      return this.#buffer;
    });
  }

  /**
   * Reads `path` a piece at a time into a small buffer of the reader's own, for a caller that only streams the
   * bytes (a digest) and need not hold the file: `begin` gets the size the file has when opened, then `piece`
   * each piece, a view valid only during the call. Limits and refusals are those of {@link read}.
   *
   * @returns the bytes read: the size given to `begin`, unless the file changed while it was read
   * @throws as {@link readFileWithinRoot}
   */
  stream(path: string, begin: (size: number) => void, piece: (bytes: Buffer) => void): number {
    const { fd, size } = openFileWithinRoot(this.root, path);
    try {
      if (size > this.maxBytes) {
        throw new WithinRootError(
          'TOO_LARGE',
          `file of ${size} bytes exceeds the limit of ${this.maxBytes} bytes`,
        );
      }
      begin(size);
      // Below glibc's mmap threshold (128 KiB), so it comes from and returns to the heap it reuses.
      this.#piece ??= Buffer.allocUnsafeSlow(PIECE_BYTES);
      let total = 0;
      for (;;) {
        const n = readSync(fd, this.#piece, 0, Math.min(PIECE_BYTES, this.maxBytes + 1 - total), null);
        if (n === 0) return total;
        total += n;
        if (total > this.maxBytes) {
          throw new WithinRootError('TOO_LARGE', `file exceeds the limit of ${this.maxBytes} bytes`);
        }
        piece(this.#piece.subarray(0, n));
      }
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Frees the buffer now rather than when the reader is collected, which for a reader that lived through a whole
   * load is a full collection away; views earlier reads gave become empty. A later read takes a new buffer.
   */
  release(): void {
    const buffer = this.#buffer;
    this.#buffer = undefined;
    // ES2024's transfer (Node 21+) detaches the memory from every view and frees it at once. The buffer is the
    // reader's own (allocUnsafeSlow), never Node's pool, which other buffers share.
    (buffer?.buffer as TransferableArrayBuffer | undefined)?.transfer(0);
  }
}

/** How much {@link FileWithinRootReader.stream} reads at a time. */
const PIECE_BYTES = 64 * 1024;

/** `ArrayBuffer.prototype.transfer`, which the ES2023 library the packages build against does not declare. */
type TransferableArrayBuffer = ArrayBuffer & { transfer(newByteLength?: number): ArrayBuffer };

/** {@link readFileWithinRoot} into the buffer `bufferFor(length)` gives when it gives one, else a new one. */
function readWithin(
  root: string,
  path: string,
  maxBytes: number,
  bufferFor: (length: number) => Buffer | undefined,
): Buffer {
  const { fd, size } = openFileWithinRoot(root, path);
  try {
    if (size > maxBytes) {
      throw new WithinRootError('TOO_LARGE', `file of ${size} bytes exceeds the limit of ${maxBytes} bytes`);
    }
    // The size it had, plus the byte that tells it grew; then one byte more tells whether it ended. Only a file
    // that grows while it is read takes more reads: one read of its size, not a second buffer of it to find the end.
    const head = bufferFor(size + 1) ?? Buffer.allocUnsafe(size + 1);
    const first = head.subarray(0, readSync(fd, head, 0, size + 1, null));
    const chunks = [first];
    let total = first.length;
    for (let want = 1; ; want = 64 * 1024) {
      if (total > maxBytes) {
        throw new WithinRootError('TOO_LARGE', `file exceeds the limit of ${maxBytes} bytes`);
      }
      const chunk = Buffer.allocUnsafe(Math.min(want, maxBytes + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
    }
    return chunks.length === 1 ? first : Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}
