import {
  closeSync,
  constants,
  type Dirent,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  rmSync,
  type Stats,
  symlinkSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { LayoutImage, OciImage } from '@opkit/oci';
import { resolveWithinRoot } from '@opkit/oci/within-root';
import { Parser, type ReadEntry } from 'tar';

/** How much an image may unpack to: catalogs and bundles are megabytes; a layer that inflates beyond is refused. */
export interface UnpackLimits {
  /** @default 2 GiB */
  readonly maxBytes?: number;
  /** @default 1,000,000 */
  readonly maxEntries?: number;
}

/** Options of {@link unpackImageLayers}. */
export interface UnpackOptions extends UnpackLimits {
  /** Stops the unpacking between two reads; it then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** A layer to unpack: its digest, and its bytes as a stream (in memory, or read from a layout as needed). */
interface LayerSource {
  readonly digest: string;
  readonly open: () => Readable;
}

function layerSources(image: OciImage | LayoutImage): LayerSource[] {
  return image.layers.map((layer) => ({
    digest: layer.descriptor.digest,
    open:
      'bytes' in layer
        ? () =>
            Readable.from([Buffer.from(layer.bytes.buffer, layer.bytes.byteOffset, layer.bytes.byteLength)])
        : () => layer.open(),
  }));
}

/** An entry the unpacker refuses; the image is refused whole. */
class Refusal extends Error {}

const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);

/**
 * The longest entry path taken, in bytes and in components: the kernel's `PATH_MAX`, and far more directories
 * than any catalog or bundle nests. Tar's PAX headers allow paths of a megabyte, each of whose components would
 * otherwise be resolved on disk.
 */
const MAX_PATH_BYTES = 4096;
const MAX_PATH_COMPONENTS = 256;

/** Where links resolve after every layer, whichever layer made them. */
interface UnpackState {
  readonly root: string;
  readonly maxBytes: number;
  readonly maxEntries: number;
  bytes: number;
  entries: number;
  /** The layer that made each symlink (by its path on disk), to name it when the link is refused at the end. */
  readonly linkLayers: Map<string, string>;
  /** The file being written, until its entry ends; a layer that fails mid-file closes it on the way out. */
  openFd: number | undefined;
}

/** Closes the file being written, if any. */
function closeOpenFile(state: UnpackState): void {
  const fd = state.openFd;
  state.openFd = undefined;
  if (fd !== undefined) closeSync(fd);
}

/** `null` when nothing is at `path` (`lstat` never follows the last link). */
function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** Makes room for a new entry at `path`: whatever is there (a symlink included) is removed, never followed. */
function clear(path: string, existing: Stats | null): void {
  if (existing === null) return;
  if (existing.isDirectory()) rmSync(path, { recursive: true, force: true });
  else unlinkSync(path);
}

/** Whether `path` (relative to the root) leaves it once its links are followed; a loop leaves nothing. */
function leavesRoot(root: string, path: string): boolean {
  try {
    return resolveWithinRoot(root, path) === undefined;
  } catch {
    return false;
  }
}

/**
 * Writes one entry. The path is resolved against what is on disk: its parent directories may be symlinks that
 * stay inside the root, and the entry is written where they lead; one that leads out is refused. A file or link
 * replaces what was at its own path without following it. Devices, FIFOs and the like are not created.
 */
function place(entry: ReadEntry, state: UnpackState, layer: string): void {
  const bytes = Buffer.byteLength(entry.path);
  if (bytes > MAX_PATH_BYTES) {
    throw new Refusal(
      `entry ${JSON.stringify(`${entry.path.slice(0, 64)}…`)} has a path of ${bytes} bytes (at most ${MAX_PATH_BYTES})`,
    );
  }
  const quoted = JSON.stringify(entry.path);
  const parts = entry.path.split('/').filter((p) => p !== '' && p !== '.');
  if (entry.path.startsWith('/') || entry.path.includes('\0') || parts.includes('..')) {
    throw new Refusal(`entry ${quoted} leaves the image root`);
  }
  if (parts.length > MAX_PATH_COMPONENTS) {
    throw new Refusal(
      `entry ${JSON.stringify(`${entry.path.slice(0, 64)}…`)} has ${parts.length} path components (at most ${MAX_PATH_COMPONENTS})`,
    );
  }
  state.entries += 1;
  if (state.entries > state.maxEntries) throw new Refusal(`it holds more than ${state.maxEntries} entries`);
  if (FILE_TYPES.has(entry.type)) state.bytes += entry.size;
  if (state.bytes > state.maxBytes)
    throw new Refusal(`it unpacks to more than ${state.maxBytes} bytes (at ${entry.path})`);
  const name = parts.pop();
  if (name === undefined) return; // the root itself
  const parent = resolveWithinRoot(state.root, parts.join('/'));
  if (parent === undefined) throw new Refusal(`entry ${quoted} leads out of the image through a symlink`);
  const rel = parent === '' ? name : `${parent}/${name}`;
  const path = join(state.root, rel);
  const { root } = state;
  mkdirSync(join(root, parent), { recursive: true });
  const existing = lstatOrNull(path);
  const mode = (entry.mode ?? 0) & 0o777;
  if (entry.type === 'Directory') {
    if (existing?.isDirectory()) return;
    clear(path, existing);
    // The owner keeps what it needs to write below and remove the tree.
    mkdirSync(path, { mode: mode | 0o700 });
  } else if (FILE_TYPES.has(entry.type)) {
    clear(path, existing);
    // O_EXCL: a link put there in between is not written through.
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    closeOpenFile(state);
    const fd = openSync(path, flags, mode | 0o600);
    state.openFd = fd;
    const close = (): void => {
      if (state.openFd === fd) closeOpenFile(state);
    };
    entry.on('data', (chunk: Buffer) => {
      try {
        writeSync(fd, chunk);
      } catch (error) {
        close();
        throw error;
      }
    });
    entry.on('end', close);
  } else if (entry.type === 'SymbolicLink') {
    const target = entry.linkpath ?? '';
    if (target === '' || target.startsWith('/') || leavesRootFrom(root, parent, target)) {
      throw new Refusal(`symlink ${quoted} points out of the image (${target})`);
    }
    clear(path, existing);
    symlinkSync(target, path);
    state.linkLayers.set(rel, layer);
  } else if (entry.type === 'Link') {
    const target = entry.linkpath ?? '';
    const linked = target.startsWith('/')
      ? undefined
      : resolveWithinRoot(root, target, { followLast: false });
    if (linked === undefined) throw new Refusal(`hard link ${quoted} points out of the image (${target})`);
    const stats = lstatOrNull(join(root, linked));
    if (stats === null || stats.isDirectory()) {
      throw new Refusal(`hard link ${quoted}: ${JSON.stringify(target)} is no file of the image`);
    }
    if (linked === rel) return;
    clear(path, existing);
    linkSync(join(root, linked), path);
    // A hard link to a symlink is a symlink, whose target now resolves from another directory.
    if (stats.isSymbolicLink()) state.linkLayers.set(rel, layer);
  }
}

/** Whether a link at `dir` (relative to the root) with `target` resolves out of the root on disk as it is now. */
function leavesRootFrom(root: string, dir: string, target: string): boolean {
  return leavesRoot(root, dir === '' ? target : `${dir}/${target}`);
}

/**
 * Unpacks one layer as it is read: the tar parser takes the stream chunk by chunk, with back-pressure, so
 * memory does not grow with the layer. The first refused entry ends the reading; so does a stream that fails
 * (content other than the layer's digest, found at its end), after whatever was unpacked, which the caller
 * removes with the rest.
 */
async function unpackLayer(
  content: Readable,
  state: UnpackState,
  layer: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  let refusal: Refusal | undefined;
  let malformed: Error | undefined;
  const parser = new Parser({
    strict: true,
    onReadEntry: (entry) => {
      if (refusal === undefined) {
        try {
          place(entry, state, layer);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          const why = code ?? (error as Error).message;
          refusal =
            error instanceof Refusal
              ? error
              : new Refusal(`cannot unpack entry ${JSON.stringify(entry.path)}: ${why}`);
        }
      }
      // A parser's entries wait to be read: what is not written (a refused entry, a link) is passed over.
      entry.resume();
    },
  });
  const done = new Promise<void>((resolve) => {
    parser.on('error', (error: Error) => {
      malformed ??= error;
      resolve();
    });
    parser.on('end', () => resolve());
  });
  const drained = (): Promise<void> =>
    Promise.race([new Promise<void>((resolve) => parser.once('drain', resolve)), done]);
  const failure = (): Error | undefined => malformed ?? refusal;
  try {
    try {
      for await (const chunk of content) {
        signal?.throwIfAborted();
        if (!parser.write(chunk as Buffer)) await drained();
        if (failure() !== undefined) break;
      }
    } catch (error) {
      signal?.throwIfAborted();
      throw new Error(`layer ${layer}: ${(error as Error).message}`);
    } finally {
      content.destroy();
    }
    if (failure() === undefined) {
      parser.end();
      await done;
    }
  } finally {
    // A layer that ends mid-file (cut short, refused, aborted, malformed) never ends that entry.
    closeOpenFile(state);
  }
  const failed = failure();
  if (failed !== undefined) throw new Error(`layer ${layer}: ${failed.message}`);
}

/**
 * Every symlink of the tree, resolved as a reader would follow it once all layers are down: a link that stayed
 * inside when it was made may lead out through links made after it.
 */
function refuseLinksOut(state: UnpackState, lastLayer: string): void {
  const walk = (rel: string): void => {
    const entries: Dirent[] = readdirSync(join(state.root, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (e.isSymbolicLink() && leavesRoot(state.root, child)) {
        const layer = state.linkLayers.get(child) ?? lastLayer;
        const target = readlinkSync(join(state.root, child));
        throw new Error(
          `layer ${layer}: symlink ${JSON.stringify(child)} points out of the image (${target})`,
        );
      }
    }
  };
  walk('');
}

/**
 * Unpacks an image's layers, in order, into `root`, which nothing may leave: every entry's path is resolved
 * against what is already on disk, symlinks and hard links whose target leads out of `root` (through `..`, an
 * absolute target or a chain of links, checked again once all layers are down) refuse the image, and devices,
 * FIFOs and sockets are not created. Sizes and entry counts are bounded.
 *
 * @throws Error naming the layer and the entry that escapes, or what exceeded the limits, or tar's reason for a
 *   malformed layer
 */
export async function unpackImageLayers(
  image: OciImage | LayoutImage,
  root: string,
  options: UnpackOptions = {},
): Promise<void> {
  const state: UnpackState = {
    root,
    maxBytes: options.maxBytes ?? 2 * 1024 ** 3,
    maxEntries: options.maxEntries ?? 1_000_000,
    bytes: 0,
    entries: 0,
    linkLayers: new Map(),
    openFd: undefined,
  };
  const layers = layerSources(image);
  for (const layer of layers) {
    options.signal?.throwIfAborted();
    await unpackLayer(layer.open(), state, layer.digest, options.signal);
  }
  const last = layers.at(-1);
  if (last !== undefined) refuseLinksOut(state, last.digest);
}
