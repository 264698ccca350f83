import { createHash } from 'node:crypto';
import { fstatSync, readSync } from 'node:fs';
import { type FileHandle, mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { CatalogFileReader, listCatalogFiles } from '../catalog/declcfg/catalog-files.js';
import { CatalogLoadError } from '../catalog/declcfg/errors.js';
import { type BundleManifests, bundleReadingFrom, type ManifestSource } from './bundle-manifests.js';
import type { RegistryChannel, RegistryEntry, RegistryModel, RegistryPackage } from './registry-model.js';

/**
 * The serve cache: a registry model with every bundle already converted, written once (at image build time, as
 * `opm serve --cache-only` is) and read at start-up instead of loading, validating and converting the catalog.
 * It is keyed by a digest of the catalog's files and of the serving options, so a cache never serves a catalog
 * other than the one it was made from.
 */
export const SERVE_CACHE_FILE = 'opkit-serve-cache.v8';

/** Written first in the file; a cache of another format is stale, never misread. */
const FORMAT = 'opkit-serve-cache/3';

/** What the cached model was made from: the catalog's files and how bundles are served. */
export interface ServeCacheKey {
  /** sha256 over the catalog's file names and contents, in load order. */
  readonly catalogDigest: string;
  readonly inlineBundles: boolean;
  readonly bundlesDir?: string;
}

interface CacheFile {
  readonly format: string;
  readonly key: ServeCacheKey;
  readonly packages: RegistryPackage[];
}

/** Where a bundle's manifests lie in the cache file: after the model, each object's UTF-8 bytes in turn. */
interface ContentPlace {
  readonly offset: number;
  /** Byte length of each object, then of the CSV JSON when it is none of them. */
  readonly lengths: readonly number[];
  /** How many objects there are. */
  readonly objects: number;
  /** Which of them is the CSV JSON; `-1` for none, `objects` for a CSV JSON stored after them. */
  readonly csv: number;
}

/**
 * An entry as the cache keeps it: its bundle without the manifests, which stay in the file and are read when a
 * request asks for them, as opm's cache reads them. The manifests are most of a catalog with them inline, and a
 * server holding them all would need several times the memory opm does.
 */
interface CachedEntry extends RegistryEntry {
  readonly content?: ContentPlace;
}

/** The manifests of converted bundles, laid out once per bundle however many channels list it. */
class ContentWriter {
  readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly placed = new Map<readonly string[], ContentPlace>();

  toCachedEntry(e: RegistryEntry): CachedEntry {
    // Spreading an entry reads its `bundle` getter: the copy holds the converted bundle as plain data.
    const entry: RegistryEntry = { ...e };
    const { csvJson, object } = entry.bundle;
    if (object.length === 0 && csvJson === '') return entry;
    let content = this.placed.get(object);
    if (content === undefined || this.csvOf(content, object) !== csvJson) {
      content = this.place(object, csvJson);
      this.placed.set(object, content);
    }
    return { ...entry, bundle: { ...entry.bundle, csvJson: '', object: [] }, content };
  }

  private csvOf(place: ContentPlace, object: readonly string[]): string | undefined {
    if (place.objects !== object.length) return undefined;
    return place.csv < 0 ? '' : place.csv < place.objects ? object[place.csv] : undefined;
  }

  private place(object: readonly string[], csvJson: string): ContentPlace {
    const offset = this.size;
    const lengths: number[] = [];
    const add = (text: string) => {
      const bytes = Buffer.from(text, 'utf8');
      this.chunks.push(bytes);
      this.size += bytes.length;
      lengths.push(bytes.length);
    };
    for (const text of object) add(text);
    let csv = csvJson === '' ? -1 : object.indexOf(csvJson);
    if (csv < 0 && csvJson !== '') {
      csv = object.length;
      add(csvJson);
    }
    return { offset, lengths, objects: object.length, csv };
  }
}

/** Reads bundles' manifests from an open cache file, from `base` on; every place was checked at open. */
class ContentReader {
  private closed = false;

  constructor(
    private readonly file: FileHandle,
    private readonly base: number,
    private readonly path: string,
  ) {}

  /** Where a bundle's texts start in the file and how many bytes they take. */
  private span(place: ContentPlace): { readonly start: number; readonly total: number } {
    let total = 0;
    for (const length of place.lengths) total += length;
    return { start: this.base + place.offset, total };
  }

  private shorter(): Error {
    return new Error(`serve cache ${this.path} is shorter than it was when the server started`);
  }

  private checkOpen(): void {
    if (this.closed) throw new Error(`serve cache ${this.path} is closed: the server is stopping`);
  }

  /** The CSV JSON and the objects of a bundle, from its bytes. */
  private manifests(place: ContentPlace, bytes: Buffer): BundleManifests {
    const texts: string[] = [];
    let at = 0;
    for (const length of place.lengths) {
      texts.push(bytes.toString('utf8', at, at + length));
      at += length;
    }
    return { csvJson: place.csv < 0 ? '' : (texts[place.csv] ?? ''), object: texts.slice(0, place.objects) };
  }

  readSync(place: ContentPlace): BundleManifests {
    this.checkOpen();
    const { start, total } = this.span(place);
    const bytes = Buffer.allocUnsafe(total);
    let done = 0;
    while (done < total) {
      const n = readSync(this.file.fd, bytes, done, total - done, start + done);
      if (n === 0) throw this.shorter();
      done += n;
    }
    return this.manifests(place, bytes);
  }

  async read(place: ContentPlace): Promise<BundleManifests> {
    this.checkOpen();
    const { start, total } = this.span(place);
    const bytes = Buffer.allocUnsafe(total);
    let done = 0;
    while (done < total) {
      const { bytesRead } = await this.file.read(bytes, done, total - done, start + done);
      if (bytesRead === 0) throw this.shorter();
      done += bytesRead;
    }
    return this.manifests(place, bytes);
  }

  /**
   * The entry with a bundle whose manifests are read from the file each time they are asked for; the rest of
   * the bundle is plain data, so answers that leave the manifests out never read them.
   */
  entry(e: CachedEntry): RegistryEntry {
    const { content, ...entry } = e;
    if (content === undefined) return entry;
    const source: ManifestSource = { read: () => this.read(content), readSync: () => this.readSync(content) };
    return { ...entry, bundle: bundleReadingFrom(entry.bundle, source) };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.file.close();
  }
}

/**
 * Why a place read from the file cannot be where a bundle's manifests lie in it, or `undefined` when it can:
 * whole offsets and lengths inside the content, a CSV index among the texts. Checked once, at open, so a damaged
 * file is stale rather than an error (or a huge allocation) on some later request.
 */
function placeProblem(place: unknown, contentSize: number): string | undefined {
  if (typeof place !== 'object' || place === null) return 'it is not an object';
  const { offset, lengths, objects, csv } = place as Partial<Record<keyof ContentPlace, unknown>>;
  const whole = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
  if (!whole(offset)) return `offset ${String(offset)} is not a whole number of bytes`;
  if (!whole(objects)) return `objects ${String(objects)} is not a count`;
  if (!Array.isArray(lengths) || (lengths.length !== objects && lengths.length !== objects + 1)) {
    return `it has no length for each of its ${objects} objects (and the CSV)`;
  }
  let end = offset;
  for (const length of lengths as unknown[]) {
    if (!whole(length)) return `length ${String(length)} is not a whole number of bytes`;
    end += length;
  }
  if (end > contentSize) return `it ends at byte ${end} of a content of ${contentSize} bytes`;
  if (typeof csv !== 'number' || !Number.isSafeInteger(csv) || csv < -1 || csv > objects) {
    return `CSV index ${String(csv)} is not -1 … ${objects}`;
  }
  if ((csv === objects) !== (lengths.length === objects + 1)) {
    return 'its CSV stored after the objects and its lengths disagree';
  }
  return undefined;
}

/**
 * The digest of a catalog directory: every file opm would load (`.indexignore` applied), names and contents.
 *
 * @throws CatalogLoadError naming the file that cannot be read, as the loader does
 */
export async function catalogDigest(dir: string): Promise<string> {
  let hash = createHash('sha256');
  let files: string[];
  try {
    files = await listCatalogFiles(dir);
  } catch (err) {
    throw new CatalogLoadError(dir, [{ file: '', message: (err as Error).message }]);
  }
  // Length-prefixed, so no two different catalogs hash the same byte stream.
  const header = (file: string, length: number): string => `${Buffer.byteLength(file)}:${file}\n${length}\n`;
  // Read as the loader reads it (within the directory, regular files only, within the size limit), a piece at
  // a time: a server that starts from its cache never holds a whole file, nor leaves its heap grown by one.
  const reader = new CatalogFileReader(dir);
  try {
    for (const file of files) {
      try {
        const before = hash.copy();
        let size = 0;
        const read = reader.stream(
          file,
          (length) => {
            size = length;
            hash.update(header(file, length));
          },
          (piece) => hash.update(piece),
        );
        if (read !== size) {
          // It changed while it was read, so the length hashed before it is not its length: hashed again whole.
          hash = before;
          const content = reader.read(file);
          hash.update(header(file, content.length));
          hash.update(content);
        }
      } catch (err) {
        throw new CatalogLoadError(dir, [{ file, message: (err as Error).message }]);
      }
    }
  } finally {
    reader.release();
  }
  return hash.digest('hex');
}

const sameKey = (a: ServeCacheKey, b: ServeCacheKey): boolean =>
  a.catalogDigest === b.catalogDigest && a.inlineBundles === b.inlineBundles && a.bundlesDir === b.bundlesDir;

/**
 * Writes the model to `cacheDir` with every bundle converted (the conversion the server otherwise does on first
 * use). The file is replaced atomically.
 */
export async function writeServeCache(
  cacheDir: string,
  key: ServeCacheKey,
  model: RegistryModel,
): Promise<void> {
  const content = new ContentWriter();
  const packages = [...model.packages.values()].map(
    (pkg): RegistryPackage => ({
      ...pkg,
      channels: new Map(
        [...pkg.channels].map(([name, ch]): [string, RegistryChannel] => [
          name,
          {
            ...ch,
            entries: new Map(
              [...ch.entries].map(([bundle, e]): [string, RegistryEntry] => [
                bundle,
                content.toCachedEntry(e),
              ]),
            ),
          },
        ]),
      ),
    }),
  );
  const file: CacheFile = { format: FORMAT, key, packages };
  const header = serialize(file);
  const length = Buffer.alloc(HEADER_LENGTH_BYTES);
  length.writeUInt32LE(header.length);
  await mkdir(cacheDir, { recursive: true });
  const path = join(cacheDir, SERVE_CACHE_FILE);
  const partial = `${path}.${process.pid}.partial`;
  try {
    await writeFile(partial, [length, header, ...content.chunks]);
    await rename(partial, path);
  } finally {
    await rm(partial, { force: true });
  }
}

/** The file starts with the byte length of the serialized model, which the manifests follow. */
const HEADER_LENGTH_BYTES = 4;

/** Whether a decoded header is a model of this format (its entries are checked as they are read). */
const isCacheFile = (file: Partial<CacheFile>): file is CacheFile =>
  file?.format === FORMAT && file.key !== undefined && Array.isArray(file.packages);

/** Why a cache file made for `file.key` cannot serve for `key`, or `undefined` when it can. */
function staleness(file: CacheFile, key: ServeCacheKey): string | undefined {
  if (sameKey(file.key, key)) return undefined;
  return file.key.catalogDigest !== key.catalogDigest
    ? 'the catalog changed since it was written'
    : 'it was written for other serving options (--inline-bundles, --bundles-dir)';
}

/** The outcome of {@link readServeCache}: the model, or why the cache cannot be used. */
export type ServeCacheRead =
  | {
      readonly model: RegistryModel;
      readonly packages: number;
      readonly bundles: number;
      /** Closes the cache file the model reads manifests from; they cannot be read after. */
      readonly close: () => Promise<void>;
    }
  | { readonly stale: string };

/**
 * The name of an older cache format the file starts with, if it does. The formats before `opkit-serve-cache/3`
 * were one V8 serialization: its header (0xFF, its version), then an object (`o`) whose first key is the
 * one-byte string (`"`, length 6) `format`, whose value is the format's name. The current format begins with
 * the model's length, and its byte 4 is 0xFF, so no current cache reads as one of these.
 */
function olderFormat(start: Buffer): string | undefined {
  if (start[0] !== 0xff || start.toString('latin1', 2, 11) !== 'o"\x06format' || start[11] !== 0x22) {
    return undefined;
  }
  const name = start.toString('latin1', 13, 13 + (start[12] ?? 0));
  return /^opkit-serve-cache\/\d+$/.test(name) ? name : undefined;
}

const TOO_SHORT = 'it is not a serve cache (it is too short)';

/** The model at the start of an open cache file, or why it is not one. */
function readHeader(
  fd: number,
): { readonly file: Partial<CacheFile>; readonly contentBase: number; readonly size: number } | string {
  const size = fstatSync(fd).size;
  const start = Buffer.alloc(Math.min(size, 64));
  readSync(fd, start, 0, start.length, 0);
  const older = olderFormat(start);
  if (older !== undefined) {
    return `it is an older opkit serve cache format (${older}, before ${FORMAT})`;
  }
  if (size < HEADER_LENGTH_BYTES) return TOO_SHORT;
  const headerLength = start.readUInt32LE();
  if (headerLength > size - HEADER_LENGTH_BYTES) return TOO_SHORT;
  const header = Buffer.allocUnsafe(headerLength);
  let done = 0;
  while (done < headerLength) {
    const n = readSync(fd, header, done, headerLength - done, HEADER_LENGTH_BYTES + done);
    if (n === 0) return TOO_SHORT;
    done += n;
  }
  try {
    return {
      file: deserialize(header) as Partial<CacheFile>,
      contentBase: HEADER_LENGTH_BYTES + headerLength,
      size,
    };
  } catch {
    return 'it is not a serve cache (it does not decode)';
  }
}

/**
 * The served model of a decoded cache file whose manifests `content` reads, with its bundle count, or why the
 * file does not hold one: every entry's manifest place is checked here, once.
 *
 * @throws TypeError and the like when the decoded model is not shaped as written (the caller makes it stale)
 */
function servedModel(
  file: CacheFile,
  content: ContentReader,
  contentSize: number,
): { readonly model: RegistryModel; readonly bundles: number } | string {
  const bundles = new Set<string>();
  for (const pkg of file.packages) {
    for (const ch of pkg.channels.values()) {
      // The deserialized map is this function's own.
      const entries = ch.entries as Map<string, CachedEntry>;
      for (const [name, e] of entries) {
        if (e.content !== undefined) {
          const problem = placeProblem(e.content, contentSize);
          if (problem !== undefined) {
            return `the manifests of bundle ${name} of package ${pkg.name} are not in it (${problem})`;
          }
        }
        entries.set(name, content.entry(e));
        bundles.add(`${pkg.name}/${name}`);
      }
    }
  }
  return { model: { packages: new Map(file.packages.map((p) => [p.name, p])) }, bundles: bundles.size };
}

/**
 * Reads the cache in `cacheDir` when it was made from exactly `key`. A cache it uses stays open for the
 * bundles' manifests, read as requests ask for them, until `close` is called: a cache replaced while serving
 * does not change what is served. A stale reason names the cache file.
 */
export async function readServeCache(cacheDir: string, key: ServeCacheKey): Promise<ServeCacheRead> {
  const path = join(cacheDir, SERVE_CACHE_FILE);
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { stale: code === 'ENOENT' ? 'no cache yet' : `cannot read it: ${(err as Error).message}` };
  }
  // What is wrong with the file names it; a cache made for another catalog or other options is not damaged.
  const stale = async (why: string, namingFile = true): Promise<ServeCacheRead> => {
    await file.close();
    return { stale: namingFile ? `${path}: ${why}` : why };
  };
  let read: ReturnType<typeof readHeader>;
  try {
    read = readHeader(file.fd);
  } catch (err) {
    read = `cannot read it: ${(err as Error).message}`;
  }
  if (typeof read === 'string') return await stale(read);
  const cache = read.file;
  if (!isCacheFile(cache)) return await stale(`it is not a ${FORMAT} file`);
  const why = staleness(cache, key);
  if (why !== undefined) return await stale(why, false);
  const content = new ContentReader(file, read.contentBase, path);
  let served: ReturnType<typeof servedModel>;
  try {
    served = servedModel(cache, content, read.size - read.contentBase);
  } catch (err) {
    served = `its model is malformed (${(err as Error).message})`;
  }
  if (typeof served === 'string') return await stale(served);
  return {
    model: served.model,
    packages: cache.packages.length,
    bundles: served.bundles,
    close: () => content.close(),
  };
}
