import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { CatalogLoadError } from '../catalog/declcfg/errors.js';
import { listCatalogFiles, readCatalogFile } from '../catalog/declcfg/load.js';
import type { ApiBundle } from './api.js';
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

/** Reads bundles' manifests from an open cache file, from `base` on. */
class ContentReader {
  constructor(
    private readonly fd: number,
    private readonly base: number,
  ) {}

  /** The texts `from` … `to` (exclusive) of a bundle's content. */
  private texts(place: ContentPlace, from: number, to: number): string[] {
    let start = place.offset;
    for (let i = 0; i < from; i++) start += place.lengths[i]!;
    let total = 0;
    for (let i = from; i < to; i++) total += place.lengths[i]!;
    const bytes = Buffer.allocUnsafe(total);
    let done = 0;
    while (done < total) {
      const n = readSync(this.fd, bytes, done, total - done, this.base + start + done);
      if (n === 0) throw new Error('the serve cache file is shorter than it was when the server started');
      done += n;
    }
    const out: string[] = [];
    let at = 0;
    for (let i = from; i < to; i++) {
      out.push(bytes.toString('utf8', at, at + place.lengths[i]!));
      at += place.lengths[i]!;
    }
    return out;
  }

  csvJson(place: ContentPlace): string {
    return place.csv < 0 ? '' : (this.texts(place, place.csv, place.csv + 1)[0] ?? '');
  }

  object(place: ContentPlace): string[] {
    return this.texts(place, 0, place.objects);
  }

  /**
   * The entry with a bundle whose manifests are read from the file each time they are asked for; the rest of
   * the bundle is plain data, so answers that leave the manifests out never read them.
   */
  entry(e: CachedEntry): RegistryEntry {
    const { content, ...entry } = e;
    if (content === undefined) return entry;
    const bundle: ApiBundle = { ...entry.bundle };
    Object.defineProperties(bundle, {
      csvJson: { get: () => this.csvJson(content), enumerable: true },
      object: { get: () => this.object(content), enumerable: true },
    });
    return { ...entry, bundle };
  }
}
/**
 * The digest of a catalog directory: every file opm would load (`.indexignore` applied), names and contents.
 *
 * @throws CatalogLoadError naming the file that cannot be read, as the loader does
 */
export async function catalogDigest(dir: string): Promise<string> {
  const hash = createHash('sha256');
  let files: string[];
  try {
    files = await listCatalogFiles(dir);
  } catch (err) {
    throw new CatalogLoadError(dir, [{ file: '', message: (err as Error).message }]);
  }
  for (const file of files) {
    // Read as the loader reads it: within the directory, regular files only, within the size limit.
    let content: Buffer;
    try {
      content = readCatalogFile(dir, file);
    } catch (err) {
      throw new CatalogLoadError(dir, [{ file, message: (err as Error).message }]);
    }
    // Length-prefixed, so no two different catalogs hash the same byte stream.
    hash.update(`${Buffer.byteLength(file)}:${file}\n${content.length}\n`);
    hash.update(content);
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

/** Why a cache file made for `file.key` cannot serve for `key`, or `undefined` when it can. */
function staleness(file: Partial<CacheFile>, key: ServeCacheKey): string | undefined {
  if (file?.format !== FORMAT || file.key === undefined || !Array.isArray(file.packages)) {
    return `it is not a ${FORMAT} file`;
  }
  if (sameKey(file.key, key)) return undefined;
  return file.key.catalogDigest !== key.catalogDigest
    ? 'the catalog changed since it was written'
    : 'it was written for other serving options (--inline-bundles, --bundles-dir)';
}

/** The outcome of {@link readServeCache}: the model, or why the cache cannot be used. */
export type ServeCacheRead =
  | { readonly model: RegistryModel; readonly packages: number; readonly bundles: number }
  | { readonly stale: string };

/** The model at the start of an open cache file, or why it is not one. */
function readHeader(
  fd: number,
): { readonly file: Partial<CacheFile>; readonly contentBase: number } | string {
  const size = fstatSync(fd).size;
  const length = Buffer.alloc(HEADER_LENGTH_BYTES);
  if (size < HEADER_LENGTH_BYTES || readSync(fd, length, 0, HEADER_LENGTH_BYTES, 0) < HEADER_LENGTH_BYTES) {
    return 'it is not a serve cache (it is too short)';
  }
  const headerLength = length.readUInt32LE();
  if (headerLength > size - HEADER_LENGTH_BYTES) return 'it is not a serve cache (it is too short)';
  const header = Buffer.allocUnsafe(headerLength);
  let done = 0;
  while (done < headerLength) {
    const n = readSync(fd, header, done, headerLength - done, HEADER_LENGTH_BYTES + done);
    if (n === 0) return 'it is not a serve cache (it is too short)';
    done += n;
  }
  try {
    return {
      file: deserialize(header) as Partial<CacheFile>,
      contentBase: HEADER_LENGTH_BYTES + headerLength,
    };
  } catch {
    return 'it is not a serve cache (it does not decode)';
  }
}

/**
 * Reads the cache in `cacheDir` when it was made from exactly `key`. A cache it uses stays open for the
 * bundles' manifests, read as requests ask for them: a cache replaced while serving does not change what is
 * served.
 */
export async function readServeCache(cacheDir: string, key: ServeCacheKey): Promise<ServeCacheRead> {
  let fd: number;
  try {
    fd = openSync(join(cacheDir, SERVE_CACHE_FILE), 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { stale: code === 'ENOENT' ? 'no cache yet' : `cannot read it: ${(err as Error).message}` };
  }
  let read: ReturnType<typeof readHeader>;
  try {
    read = readHeader(fd);
  } catch (err) {
    read = `cannot read it: ${(err as Error).message}`;
  }
  const stale = typeof read === 'string' ? read : staleness(read.file, key);
  if (stale !== undefined || typeof read === 'string') {
    closeSync(fd);
    return { stale: stale ?? 'it is not a serve cache' };
  }
  const file = read.file as CacheFile;
  const content = new ContentReader(fd, read.contentBase);
  const bundles = new Set<string>();
  for (const pkg of file.packages) {
    for (const ch of pkg.channels.values()) {
      // The deserialized map is this function's own.
      const entries = ch.entries as Map<string, CachedEntry>;
      for (const [name, e] of entries) {
        entries.set(name, content.entry(e));
        bundles.add(`${pkg.name}/${name}`);
      }
    }
  }
  return {
    model: { packages: new Map(file.packages.map((p) => [p.name, p])) },
    packages: file.packages.length,
    bundles: bundles.size,
  };
}
