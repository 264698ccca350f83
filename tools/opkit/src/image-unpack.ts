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

/**
 * Unpacks an image's layers, in order, into `root`. node-tar strips absolute paths and refuses `..` and links
 * out of `root`; sizes and entry counts are bounded here.
 *
 * @throws Error naming what exceeded the limits, or tar's reason for a malformed layer
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
