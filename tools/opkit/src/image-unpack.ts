import { posix } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { OciImage } from '@opkit/oci';
import { extract } from 'tar';

/** How much an image may unpack to: catalogs and bundles are megabytes; a layer that inflates beyond is refused. */
export interface UnpackLimits {
  /** @default 2 GiB */
  readonly maxBytes?: number;
  /** @default 1,000,000 */
  readonly maxEntries?: number;
}

/** Whether `path` (relative to the root, `/`-separated) stays inside it. */
function staysInside(path: string): boolean {
  if (path.startsWith('/') || path.includes('\0')) return false;
  const n = posix.normalize(path);
  return n !== '..' && !n.startsWith('../');
}

/**
 * Why an entry must not be unpacked: an absolute or `..` path, or a link whose target leaves the root. node-tar
 * would only skip such paths with a warning and would create the symlink, which a reader of the tree then
 * follows out of the image; an image that tries either is refused whole.
 */
function escapeReason(path: string, type: string, linkpath: string | undefined): string | undefined {
  if (!staysInside(path)) return `entry ${JSON.stringify(path)} leaves the image root`;
  if (type === 'SymbolicLink' && linkpath !== undefined) {
    const target = linkpath.startsWith('/') ? linkpath : posix.join(posix.dirname(path), linkpath);
    if (!staysInside(target)) return `symlink ${JSON.stringify(path)} points out of the image (${linkpath})`;
  }
  if (type === 'Link' && linkpath !== undefined && !staysInside(linkpath)) {
    return `hard link ${JSON.stringify(path)} points out of the image (${linkpath})`;
  }
  return undefined;
}

/**
 * Unpacks an image's layers, in order, into `root`. Entries that would leave `root` (absolute or `..` paths,
 * links pointing out) are refused, and sizes and entry counts are bounded.
 *
 * @throws Error naming the entry that escapes or what exceeded the limits, or tar's reason for a malformed layer
 */
export async function unpackImageLayers(
  image: OciImage,
  root: string,
  limits: UnpackLimits = {},
): Promise<void> {
  const maxBytes = limits.maxBytes ?? 2 * 1024 ** 3;
  const maxEntries = limits.maxEntries ?? 1_000_000;
  let bytes = 0;
  let entries = 0;
  let refusal: string | undefined;
  for (const layer of image.layers) {
    const unpack = extract({
      cwd: root,
      gzip: true,
      filter: (path, entry) => {
        const linkpath = 'linkpath' in entry ? entry.linkpath : undefined;
        refusal ??= escapeReason(path, 'type' in entry ? entry.type : '', linkpath);
        bytes += 'size' in entry ? (entry.size ?? 0) : 0;
        entries += 1;
        if (bytes > maxBytes) refusal ??= `it unpacks to more than ${maxBytes} bytes (at ${path})`;
        if (entries > maxEntries) refusal ??= `it holds more than ${maxEntries} entries`;
        return refusal === undefined;
      },
    });
    await pipeline(Readable.from([Buffer.from(layer.bytes)]), unpack);
    if (refusal !== undefined) throw new Error(refusal);
  }
}
