// The files of a file-based catalog directory, found and read as opm's loader finds and reads them: every file
// below the directory in `fs.WalkDir` order except what `.indexignore` files exclude, each read within the
// directory. Apart from decoding them (load.ts), so that what only reads the files — the serve cache's digest
// of the catalog — loads none of the decoders.
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { FileWithinRootReader, readFileWithinRoot, WithinRootError } from '@opkit/oci/within-root';
import { byteOrder } from '../../go-compat/go-format.js';
import { INDEX_IGNORE_FILE, IndexIgnoreMatcher } from './indexignore.js';

/** The default of `maxFileBytes`: about the longest string V8 can hold, so no readable catalog file is refused. */
export const MAX_CATALOG_FILE_BYTES = 512 * 1024 * 1024;

interface WalkEntry {
  readonly rel: string;
  readonly isDir: boolean;
}

/** `fs.WalkDir` order: each directory's entries sorted by name, directories descended into as they come. */
async function walk(root: string, rel: string, out: WalkEntry[]): Promise<void> {
  const entries: Dirent[] = await readdir(rel === '' ? root : join(root, rel), { withFileTypes: true });
  entries.sort((a, b) => byteOrder(a.name, b.name));
  for (const e of entries) {
    const childRel = rel === '' ? e.name : `${rel}/${e.name}`;
    // Like Go's DirEntry, a symlink is not a directory even when it points to one.
    const isDir = e.isDirectory();
    out.push({ rel: childRel, isDir });
    if (isDir) await walk(root, childRel, out);
  }
}

function parentDir(rel: string): string {
  const slash = rel.lastIndexOf('/');
  return slash < 0 ? '' : rel.slice(0, slash);
}

/** A file system error as Go's `fs.PathError` words it: the operation, the path, the reason. */
export function fsErrorMessage(op: string, path: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  const reason: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EISDIR: 'is a directory',
    EACCES: 'permission denied',
    ENOTDIR: 'not a directory',
  };
  return `${op} ${path}: ${(code && reason[code]) ?? (err as Error).message}`;
}

/**
 * The bytes of a file of the catalog directory: a regular file, or a symlink that leads to one without leaving
 * `dir`; never a device, FIFO or socket, and never more than `maxFileBytes`.
 *
 * @throws Error whose message names `file` as opm's `os.DirFS` would, with the reason
 */
export function readCatalogFile(
  dir: string,
  file: string,
  maxFileBytes: number = MAX_CATALOG_FILE_BYTES,
): Buffer {
  try {
    return readFileWithinRoot(dir, file, maxFileBytes);
  } catch (err) {
    throw catalogFileError(dir, file, err);
  }
}

/**
 * Reads the files of a catalog directory one after another, as {@link readCatalogFile} does, into one buffer
 * it reuses: a reader that is done with each file's bytes before the next (decoding, hashing) holds the largest
 * file's bytes, not every file's until the garbage collector finds them.
 */
export class CatalogFileReader {
  readonly #reader: FileWithinRootReader;

  constructor(
    readonly dir: string,
    maxFileBytes: number = MAX_CATALOG_FILE_BYTES,
  ) {
    this.#reader = new FileWithinRootReader(dir, maxFileBytes);
  }

  /**
   * The bytes of `file`: a view the next read overwrites.
   *
   * @throws Error as {@link readCatalogFile}
   */
  read(file: string): Buffer {
    try {
      return this.#reader.read(file);
    } catch (err) {
      throw catalogFileError(this.dir, file, err);
    }
  }

  /**
   * Streams `file` a piece at a time (see `FileWithinRootReader.stream`): `begin` gets its size, `piece` each
   * piece, a view valid during the call only.
   *
   * @returns the bytes read, the size given to `begin` unless the file changed while it was read
   * @throws Error as {@link readCatalogFile}
   */
  stream(file: string, begin: (size: number) => void, piece: (bytes: Buffer) => void): number {
    try {
      return this.#reader.stream(file, begin, piece);
    } catch (err) {
      throw catalogFileError(this.dir, file, err);
    }
  }

  /** Frees the buffer at once; the views reads gave become empty. */
  release(): void {
    this.#reader.release();
  }
}

/** A failure to read `file` of the catalog directory `dir`, named as opm's `os.DirFS` names it. */
function catalogFileError(dir: string, file: string, err: unknown): Error {
  // Like os.DirFS: an open error names the relative path, a read error (a directory) the joined one.
  if (!(err instanceof WithinRootError)) return new Error(fsErrorMessage('open', file, err));
  if (err.code === 'IS_DIRECTORY') return new Error(`read ${dir}/${file}: ${err.reason}`);
  return new Error(`${err.code === 'TOO_LARGE' ? 'read' : 'open'} ${file}: ${err.reason}`);
}

/**
 * Lists the files of a catalog directory that opm loads, in path order: every regular file or symlink below `dir`
 * (hidden files and directories included) except `.indexignore` files and paths their patterns exclude.
 *
 * @throws Error naming an `.indexignore` file that cannot be read, as {@link loadCatalog} reads files
 */
export async function listCatalogFiles(
  dir: string,
  maxFileBytes: number = MAX_CATALOG_FILE_BYTES,
): Promise<string[]> {
  const entries: WalkEntry[] = [];
  await walk(dir, '', entries);
  const matcher = new IndexIgnoreMatcher();
  for (const e of entries) {
    if (!e.isDir && e.rel.split('/').pop() === INDEX_IGNORE_FILE) {
      matcher.add(parentDir(e.rel), readCatalogFile(dir, e.rel, maxFileBytes).toString('utf8'));
    }
  }
  return entries
    .filter((e) => !e.isDir && e.rel.split('/').pop() !== INDEX_IGNORE_FILE && !matcher.ignores(e.rel))
    .map((e) => e.rel);
}
