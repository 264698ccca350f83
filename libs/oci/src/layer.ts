import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { sha256Digest } from './digest.js';
import { LayerInvalidError } from './errors.js';

/**
 * One entry of an in-memory layer. `path` is relative to the layer root (a leading `/` or `./` is ignored);
 * parent directories are added automatically. Files default to mode `0644`, directories to `0755`.
 */
export type LayerEntry =
  | {
      readonly type?: 'file';
      readonly path: string;
      readonly content: Uint8Array | string;
      /** Permission bits; default `0o644`. */
      readonly mode?: number;
    }
  | { readonly type: 'directory'; readonly path: string; readonly mode?: number }
  | { readonly type: 'symlink'; readonly path: string; readonly target: string };

/** Options shared by every layer builder. */
export interface LayerOptions {
  /** Directory of the image every entry is placed under, e.g. `/configs`. Default: the image root. */
  readonly prefix?: string;
  /**
   * Modification time of every entry, in seconds since the epoch. Default `0`. Pass
   * {@link sourceDateEpoch}`()` to honour `SOURCE_DATE_EPOCH`.
   */
  readonly mtime?: number;
  /**
   * gzip level. `1`–`9` (default `6`) deflate with the runtime's bundled zlib: the tar and its digest
   * (`diff_id`) never depend on the runtime, but the compressed bytes (and so the layer and manifest digests)
   * are only stable for one zlib build — Node releases bundling another zlib revision may compress differently.
   * `0` writes stored (uncompressed) deflate blocks without zlib, giving identical bytes on every runtime at
   * the cost of size.
   */
  readonly compressionLevel?: number;
}

/** How {@link readDirectoryEntries} turns the files on disk into entries. */
export interface DirectoryReadOptions {
  /** Give a file mode `0755` (instead of `0644`) when any execute bit is set on disk. Default `false`. */
  readonly preserveExecutable?: boolean;
  /**
   * Keep the permission bits found on disk (`mode & 0o7777`, so also setuid, setgid and sticky bits: `/tmp`
   * stays `1777`, a `0700` directory stays `0700`) for files and directories, instead of `0644`/`0755`. Wins
   * over `preserveExecutable`. Owners are still written as `0:0`. Default `false`.
   */
  readonly preserveMode?: boolean;
  /**
   * Leave out device files, FIFOs and sockets (e.g. the nodes under a root filesystem's `/dev`) instead of
   * rejecting them. Default `false`.
   */
  readonly skipSpecialFiles?: boolean;
}

/** Options of {@link layerFromDirectory}. */
export interface DirectoryLayerOptions extends LayerOptions, DirectoryReadOptions {}

/** A gzip-compressed layer tarball and the digests that describe it. */
export interface Layer {
  /** sha256 of the uncompressed tar: the layer's `diff_id` in the image config. */
  readonly tarDigest: string;
  /** sha256 of the gzip stream: the layer's digest in the manifest and its blob name. */
  readonly gzDigest: string;
  /** Size in bytes of the gzip stream. */
  readonly size: number;
  /** The gzip stream (the blob). */
  readonly bytes: Uint8Array;
}

/** Layer media type used in manifests for layers built here. */
export const LAYER_MEDIA_TYPE = 'application/vnd.oci.image.layer.v1.tar+gzip';

const BLOCK = 512;
const MAX_OCTAL_11 = 0o77777777777;
const FILE_MODE = 0o644;
const DIR_MODE = 0o755;
const SYMLINK_MODE = 0o777;
const EXEC_MODE = 0o755;

type NormalizedEntry =
  | { kind: 'file'; path: string; content: Uint8Array; mode: number }
  | { kind: 'directory'; path: string; mode: number; implied: boolean }
  | { kind: 'symlink'; path: string; target: string };

/**
 * Reads `SOURCE_DATE_EPOCH` from `env`: the whole seconds it holds, or `undefined` when unset or not a
 * non-negative integer.
 */
export function sourceDateEpoch(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.SOURCE_DATE_EPOCH?.trim();
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  const value = Number(raw);
  return Number.isSafeInteger(value) && value <= MAX_OCTAL_11 ? value : undefined;
}

/**
 * Builds a reproducible layer from an in-memory entry list. The output depends only on the paths, contents,
 * modes and options: entries are sorted by path (UTF-8 byte order), every header carries the same mtime,
 * uid/gid 0 and empty user/group names, and the gzip header has no mtime, no file name and a fixed OS byte.
 *
 * Headers are plain USTAR; a PAX extended header (holding only `path`/`linkpath`) is written solely for names
 * that do not fit USTAR or are not ASCII.
 *
 * @throws LayerInvalidError for an empty or escaping path (`..`), a duplicate path, or a path that is both a
 *   file and a directory.
 */
export function layerFromEntries(entries: readonly LayerEntry[], options: LayerOptions = {}): Layer {
  const mtime = options.mtime ?? 0;
  if (!Number.isSafeInteger(mtime) || mtime < 0 || mtime > MAX_OCTAL_11) {
    throw new LayerInvalidError('<mtime>', `mtime must be a whole number of seconds >= 0, got ${mtime}`);
  }
  const prefix = options.prefix === undefined ? [] : splitPath(options.prefix, true);
  const tar = buildTar(normalize(entries, prefix), mtime);
  const level = options.compressionLevel ?? 6;
  if (!Number.isInteger(level) || level < 0 || level > 9) {
    throw new LayerInvalidError('<compressionLevel>', `compression level must be 0-9, got ${level}`);
  }
  const gz = gzip(tar, level);
  return { tarDigest: sha256Digest(tar), gzDigest: sha256Digest(gz), size: gz.byteLength, bytes: gz };
}

/**
 * Builds a reproducible layer from the tree under `dir` (regular files, directories and symlinks; the root
 * itself is not an entry). On-disk timestamps and owners never influence the result; permission bits only as
 * `preserveExecutable` or `preserveMode` say. Hard links become separate regular files.
 */
export async function layerFromDirectory(dir: string, options: DirectoryLayerOptions = {}): Promise<Layer> {
  return layerFromEntries(await readDirectoryEntries(dir, options), options);
}

/**
 * Reads the tree under `dir` into layer entries with paths relative to `dir`, prefixed by `as` when given.
 *
 * @throws LayerInvalidError for sockets, FIFOs and device files, unless `skipSpecialFiles` is set.
 */
export async function readDirectoryEntries(
  dir: string,
  options: DirectoryReadOptions & { readonly as?: string } = {},
): Promise<LayerEntry[]> {
  const out: LayerEntry[] = [];
  const base = options.as === undefined ? '' : splitPath(options.as, true).join('/');
  const walk = async (abs: string, rel: string): Promise<void> => {
    const names = (await readdir(abs)).sort();
    for (const name of names) {
      const childAbs = join(abs, name);
      const childRel = rel === '' ? name : `${rel}/${name}`;
      const st = await lstat(childAbs);
      if (st.isDirectory()) {
        const mode = options.preserveMode === true ? st.mode & 0o7777 : DIR_MODE;
        out.push({ type: 'directory', path: childRel, mode });
        await walk(childAbs, childRel);
      } else if (st.isFile()) {
        const executable = options.preserveExecutable === true && (st.mode & 0o111) !== 0;
        const mode = options.preserveMode === true ? st.mode & 0o7777 : executable ? EXEC_MODE : FILE_MODE;
        out.push({ path: childRel, content: await readFile(childAbs), mode });
      } else if (st.isSymbolicLink()) {
        out.push({ type: 'symlink', path: childRel, target: await readlink(childAbs) });
      } else if (options.skipSpecialFiles !== true) {
        throw new LayerInvalidError(childAbs, 'only regular files, directories and symlinks are supported');
      }
    }
  };
  await walk(dir, base);
  return out;
}

function splitPath(path: string, allowEmpty: boolean): string[] {
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw new LayerInvalidError(path, 'path must not contain ".."');
  if (parts.some((p) => p.includes('\0'))) throw new LayerInvalidError(path, 'path must not contain NUL');
  if (!allowEmpty && parts.length === 0) throw new LayerInvalidError(path, 'path is empty');
  return parts;
}

function normalize(entries: readonly LayerEntry[], prefix: readonly string[]): NormalizedEntry[] {
  const byPath = new Map<string, NormalizedEntry>();
  const addParents = (parts: readonly string[]): void => {
    for (let i = 1; i < parts.length; i++) {
      const dirPath = parts.slice(0, i).join('/');
      const existing = byPath.get(dirPath);
      if (existing === undefined) {
        byPath.set(dirPath, { kind: 'directory', path: dirPath, mode: DIR_MODE, implied: true });
      } else if (existing.kind !== 'directory') {
        throw new LayerInvalidError(dirPath, 'is both a file and a directory');
      }
    }
  };
  for (const entry of entries) {
    const parts = [...prefix, ...splitPath(entry.path, false)];
    const path = parts.join('/');
    addParents(parts);
    const existing = byPath.get(path);
    let next: NormalizedEntry;
    if (entry.type === 'directory') {
      next = { kind: 'directory', path, mode: (entry.mode ?? DIR_MODE) & 0o7777, implied: false };
    } else if (entry.type === 'symlink') {
      if (entry.target === '' || entry.target.includes('\0')) {
        throw new LayerInvalidError(entry.path, 'symlink target must be non-empty and contain no NUL');
      }
      next = { kind: 'symlink', path, target: entry.target };
    } else {
      const content = typeof entry.content === 'string' ? Buffer.from(entry.content, 'utf8') : entry.content;
      next = { kind: 'file', path, content, mode: (entry.mode ?? FILE_MODE) & 0o7777 };
    }
    if (existing !== undefined) {
      const mergeableDir = existing.kind === 'directory' && next.kind === 'directory' && existing.implied;
      if (!mergeableDir) {
        const reason = existing.kind === 'directory' && next.kind !== 'directory';
        throw new LayerInvalidError(path, reason ? 'is both a file and a directory' : 'duplicate path');
      }
    }
    byPath.set(path, next);
  }
  const sorted = [...byPath.values()];
  sorted.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  return sorted;
}

function buildTar(entries: readonly NormalizedEntry[], mtime: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  for (const entry of entries) {
    if (entry.kind === 'file') {
      chunks.push(...headerBlocks(entry.path, '0', entry.content.byteLength, entry.mode, mtime, ''));
      chunks.push(entry.content);
      const pad = (BLOCK - (entry.content.byteLength % BLOCK)) % BLOCK;
      if (pad > 0) chunks.push(new Uint8Array(pad));
    } else if (entry.kind === 'directory') {
      chunks.push(...headerBlocks(`${entry.path}/`, '5', 0, entry.mode, mtime, ''));
    } else {
      chunks.push(...headerBlocks(entry.path, '2', 0, SYMLINK_MODE, mtime, entry.target));
    }
  }
  chunks.push(new Uint8Array(BLOCK * 2));
  return Buffer.concat(chunks);
}

/** The USTAR header for one entry, preceded by a PAX header when the names need one. */
function headerBlocks(
  name: string,
  typeflag: string,
  size: number,
  mode: number,
  mtime: number,
  linkname: string,
): Uint8Array[] {
  if (size > MAX_OCTAL_11) throw new LayerInvalidError(name, 'files of 8 GiB or more are not supported');
  const records: Array<[string, string]> = [];
  const split = splitUstarName(name);
  if (split === undefined) records.push(['path', name]);
  const linkBytes = Buffer.from(linkname, 'utf8');
  const linkFits = linkBytes.byteLength <= 100 && isAscii(linkname);
  if (!linkFits) records.push(['linkpath', linkname]);

  const blocks: Uint8Array[] = [];
  if (records.length > 0) {
    const body = paxBody(records);
    blocks.push(
      ustarHeader({ name: 'PaxHeaders/entry', prefix: '' }, 'x', body.byteLength, FILE_MODE, mtime, ''),
    );
    blocks.push(body);
    const pad = (BLOCK - (body.byteLength % BLOCK)) % BLOCK;
    if (pad > 0) blocks.push(new Uint8Array(pad));
  }
  const fallbackName = { name: asciiTruncate(name, 100), prefix: '' };
  blocks.push(
    ustarHeader(
      split ?? fallbackName,
      typeflag,
      size,
      mode,
      mtime,
      linkFits ? linkname : asciiTruncate(linkname, 100),
    ),
  );
  return blocks;
}

function ustarHeader(
  names: { name: string; prefix: string },
  typeflag: string,
  size: number,
  mode: number,
  mtime: number,
  linkname: string,
): Uint8Array {
  const h = Buffer.alloc(BLOCK);
  h.write(names.name, 0, 100, 'utf8');
  writeOctal(h, 100, 8, mode);
  writeOctal(h, 108, 8, 0);
  writeOctal(h, 116, 8, 0);
  writeOctal(h, 124, 12, size);
  writeOctal(h, 136, 12, mtime);
  h.fill(0x20, 148, 156);
  h.write(typeflag, 156, 1, 'ascii');
  h.write(linkname, 157, 100, 'utf8');
  h.write('ustar\0', 257, 6, 'ascii');
  h.write('00', 263, 2, 'ascii');
  writeOctal(h, 329, 8, 0);
  writeOctal(h, 337, 8, 0);
  h.write(names.prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return h;
}

function writeOctal(h: Buffer, offset: number, width: number, value: number): void {
  h.write(`${value.toString(8).padStart(width - 1, '0')}\0`, offset, width, 'ascii');
}

/** Splits a name into USTAR `prefix`/`name` fields, or `undefined` when it needs a PAX `path` record. */
function splitUstarName(name: string): { name: string; prefix: string } | undefined {
  if (!isAscii(name)) return undefined;
  if (name.length <= 100) return { name, prefix: '' };
  // A directory's trailing slash stays with the name part.
  for (let i = Math.min(155, name.length - 2); i > 0; i--) {
    if (name[i] === '/' && name.length - i - 1 <= 100)
      return { prefix: name.slice(0, i), name: name.slice(i + 1) };
  }
  return undefined;
}

function paxBody(records: ReadonlyArray<[string, string]>): Uint8Array {
  const lines = records.map(([key, value]) => {
    const rest = ` ${key}=${value}\n`;
    const restLength = Buffer.byteLength(rest, 'utf8');
    let length = restLength + 1;
    while (String(length).length + restLength !== length) length = String(length).length + restLength;
    return `${length}${rest}`;
  });
  return Buffer.from(lines.join(''), 'utf8');
}

function isAscii(value: string): boolean {
  return /^[\x20-\x7e]*$/.test(value);
}

function asciiTruncate(value: string, max: number): string {
  return value.replace(/[^\x20-\x7e]/g, '_').slice(0, max);
}

/**
 * gzip with a fixed 10-byte header (no mtime, no name, XFL 0, OS 255 "unknown") around a raw deflate stream,
 * so the result does not depend on the time or the platform's OS code. Level 0 writes stored blocks itself.
 */
function gzip(data: Uint8Array, level: number): Uint8Array {
  const header = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);
  const body = level === 0 ? storedDeflate(data) : deflateRawSync(data, { level });
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(data) >>> 0, 0);
  trailer.writeUInt32LE(data.byteLength % 2 ** 32, 4);
  return Buffer.concat([header, body, trailer]);
}

/** A raw deflate stream of stored blocks (RFC 1951 §3.2.4): fully determined by the input. */
function storedDeflate(data: Uint8Array): Uint8Array {
  const MAX = 0xffff;
  const parts: Uint8Array[] = [];
  let offset = 0;
  do {
    const length = Math.min(MAX, data.byteLength - offset);
    const last = offset + length >= data.byteLength;
    const head = Buffer.alloc(5);
    head[0] = last ? 1 : 0;
    head.writeUInt16LE(length, 1);
    head.writeUInt16LE(~length & 0xffff, 3);
    parts.push(head, data.subarray(offset, offset + length));
    offset += length;
  } while (offset < data.byteLength);
  return Buffer.concat(parts);
}
