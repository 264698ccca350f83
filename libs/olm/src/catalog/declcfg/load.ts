import { stat } from 'node:fs/promises';
import { goQuote } from '../../go-compat/go-format.js';
import { addMeta } from './blobs.js';
import {
  CatalogFileReader,
  fsErrorMessage,
  listCatalogFiles,
  MAX_CATALOG_FILE_BYTES,
} from './catalog-files.js';
import { CatalogLoadError, type LoadProblem } from './errors.js';
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
  // Each file is decoded into strings and objects before the next is read: one buffer serves them all.
  const reader = new CatalogFileReader(dir, maxFileBytes);
  let results: ReturnType<typeof loadFile>[];
  try {
    results = files.map((file) => loadFile(reader, file, options.fileCache));
  } finally {
    reader.release();
  }
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
  reader: CatalogFileReader,
  file: string,
  cache: CatalogFileCache | undefined,
): { catalog: Catalog; problem?: LoadProblem } {
  const catalog = emptyCatalog();
  let bytes: Buffer;
  try {
    bytes = reader.read(file);
  } catch (err) {
    return { catalog, problem: { file, message: (err as Error).message } };
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
