import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FileWithinRootReader, readFileWithinRoot, WithinRootError } from '@opkit/oci/within-root';
import { byteOrder, goQuote } from '../../go-compat/go-format.js';
import { addMeta } from './blobs.js';
import { CatalogLoadError, type LoadProblem } from './errors.js';
import { INDEX_IGNORE_FILE, IndexIgnoreMatcher } from './indexignore.js';
import { decodeCatalogStream } from './stream.js';
import { type Catalog, emptyCatalog } from './types.js';

/** Options of {@link loadCatalog}. */
export interface LoadCatalogOptions {
  /**
   * Files larger than this are refused before they are read. The default, 512 MiB, is about the longest string
   * V8 can hold, so no readable catalog file is refused; it keeps a huge file from exhausting memory first.
   */
  readonly maxFileBytes?: number;
  /**
   * Files already decoded by another load, by path: a file of this catalog with the same path and the same bytes
   * takes that load's blobs instead of being decoded again, and every file this load decodes is added. Two
   * revisions of one catalog share most of their files, so comparing them costs little more than loading one.
   * The blobs are then shared by both catalogs, which is safe as blobs are never changed once loaded.
   */
  readonly fileCache?: CatalogFileCache;
}

/** What {@link LoadCatalogOptions.fileCache} keeps of each decoded file. */
export type CatalogFileCache = Map<string, { readonly bytes: Uint8Array; readonly catalog: Catalog }>;

/** The default of {@link LoadCatalogOptions.maxFileBytes}. */
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

function fsErrorMessage(op: string, path: string, err: unknown): string {
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

/**
 * Loads a file-based catalog directory with opm's rules (`declcfg.LoadFS`): every file not excluded by an
 * `.indexignore` — hidden files and sub-directories included, whatever the extension — must be a stream of
 * JSON values or YAML documents; each document's `schema` decides whether it is a package, channel, bundle,
 * deprecation or "other" blob. Blobs keep their `source` (file and document index).
 *
 * @throws CatalogLoadError (`CATALOG_NOT_FOUND`, `CATALOG_NOT_A_DIRECTORY`, or `CATALOG_LOAD_FAILED` listing the
 *   first problem of each broken file with opm's message).
 */
export async function loadCatalog(dir: string, options: LoadCatalogOptions = {}): Promise<Catalog> {
  try {
    const s = await stat(dir);
    if (!s.isDirectory()) {
      throw new CatalogLoadError(
        dir,
        [{ file: '', message: `${goQuote(dir)} is not a directory` }],
        'CATALOG_NOT_A_DIRECTORY',
      );
    }
  } catch (err) {
    if (err instanceof CatalogLoadError) throw err;
    throw new CatalogLoadError(
      dir,
      [{ file: '', message: fsErrorMessage('stat', dir, err) }],
      'CATALOG_NOT_FOUND',
    );
  }
  const maxFileBytes = options.maxFileBytes ?? MAX_CATALOG_FILE_BYTES;
  let files: string[];
  try {
    files = await listCatalogFiles(dir, maxFileBytes);
  } catch (err) {
    throw new CatalogLoadError(dir, [{ file: '', message: (err as Error).message }]);
  }
  // Files are read synchronously, one after another: decoding a file takes longer than reading it, and the
  // promise API's open, stat, read and close, each a round trip through the thread pool, cost more on this
  // thread than the reads themselves (15–30 ms for the 50 files of a 9 MB catalog).
  // Into one buffer, reused: each file is decoded into strings and objects before the next is read, so a load
  // holds the largest file's bytes, not every file's until the garbage collector finds them.
  const reader = new FileWithinRootReader(dir, maxFileBytes);
  const results = files.map((file) => loadFile(reader, file, options.fileCache));
  const problems = results.flatMap((r) => (r.problem ? [r.problem] : []));
  if (problems.length > 0) throw new CatalogLoadError(dir, problems);
  const out = emptyCatalog();
  for (const { catalog } of results) {
    out.packages.push(...catalog.packages);
    out.channels.push(...catalog.channels);
    out.bundles.push(...catalog.bundles);
    out.deprecations.push(...catalog.deprecations);
    out.others.push(...catalog.others);
  }
  return out;
}

/** One file of {@link loadCatalog}: its blobs, and the first problem that stopped its decoding. */
function loadFile(
  reader: FileWithinRootReader,
  file: string,
  cache: CatalogFileCache | undefined,
): { catalog: Catalog; problem?: LoadProblem } {
  const catalog = emptyCatalog();
  let bytes: Buffer;
  try {
    bytes = reader.read(file);
  } catch (err) {
    return { catalog, problem: { file, message: catalogFileError(reader.root, file, err).message } };
  }
  const known = cache?.get(file);
  if (known !== undefined && bytes.equals(known.bytes)) return { catalog: known.catalog };
  const decoded = decodeCatalogStream(bytes);
  const metas = decoded.metas;
  for (let index = 0; index < metas.length; index++) {
    const message = addMeta(catalog, metas[index]!, { file, index });
    if (message !== undefined) return { catalog, problem: { file, message } };
  }
  if (decoded.error !== undefined) return { catalog, problem: { file, message: decoded.error } };
  // Only a file that loaded whole is kept: a broken one is decoded again, to report its problem again.
  // The bytes are the reader's, overwritten by the next file: the cache keeps a copy.
  cache?.set(file, { bytes: Buffer.from(bytes), catalog });
  return { catalog };
}

/**
 * Parses one catalog file's content (a JSON stream or YAML documents) into a catalog, with the same rules as
 * {@link loadCatalog}.
 *
 * @param file the name recorded as the blobs' source and in errors
 * @throws CatalogLoadError
 */
export function parseCatalogContent(content: string | Uint8Array, file = '<input>'): Catalog {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  const catalog = emptyCatalog();
  const decoded = decodeCatalogStream(bytes);
  for (const [index, meta] of decoded.metas.entries()) {
    const message = addMeta(catalog, meta, { file, index });
    if (message !== undefined) throw new CatalogLoadError(file, [{ file, message }]);
  }
  if (decoded.error !== undefined) throw new CatalogLoadError(file, [{ file, message: decoded.error }]);
  return catalog;
}
