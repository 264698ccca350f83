// A bundle named the three ways the CLI takes one: a bundle directory, an OCI image layout of a bundle image
// (`<layout>` or `<layout>:<tag>`, as `bundle image` and `bundle build-all` write them) or a bundle image
// reference in a registry, as `operator-sdk bundle validate` takes a directory or an image.
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LayoutImage, RegistryClient } from '@opkit/oci';
import { ActionError } from './errors.js';

/** The label every registry+v1 bundle image carries (its metadata/annotations.yaml). */
const BUNDLE_MEDIATYPE_LABEL = 'operators.operatorframework.io.bundle.mediatype.v1';

/**
 * What a bundle image may take: bundles are manifests of kilobytes to a few megabytes, so anything near these
 * figures is not a bundle, and a registry serving one is not left to fill the disk or hang the command.
 */
export const BUNDLE_IMAGE_LIMITS = {
  /** Bytes of configs and layers pulled. */
  pullBytes: 64 * 2 ** 20,
  /** Milliseconds the pull may take. */
  pullTimeoutMs: 5 * 60_000,
  /** Bytes unpacked from the layers. */
  unpackBytes: 256 * 2 ** 20,
  /** Files, directories and links unpacked. */
  unpackEntries: 10_000,
} as const;

/** How a bundle image named by reference is pulled. */
export interface BundleSourceOptions {
  /** The client image references are pulled with; the caller closes it. Needed only for a reference. */
  readonly registry?: () => RegistryClient;
}

/** Whether `source` names a directory that is neither an OCI layout (nor a layout's `<dir>:<tag>`). */
export function isPlainDirectory(source: string): boolean {
  return existsSync(source) && statSync(source).isDirectory() && !existsSync(join(source, 'oci-layout'));
}

/**
 * Hands `use` a directory holding the bundle `source` names: the directory itself, or the bundle image's
 * layers unpacked into a temporary directory, removed however `use` ends.
 *
 * @throws ActionError `OPKIT_BUNDLE_SOURCE_INVALID` when `source` is none of the three, or an image that is not
 *   a bundle image
 */
export async function withBundleSource<T>(
  source: string,
  options: BundleSourceOptions,
  use: (dir: string) => T | Promise<T>,
): Promise<T> {
  if (isPlainDirectory(source)) return use(source);
  const [{ openLayoutImage, parseReference, splitTrailingTag }, { withPulledImage }] = await Promise.all([
    import('@opkit/oci'),
    import('./pulled-image.js'),
  ]);
  const unpacked = (image: LayoutImage) => unpackBundleImage(image, source, use);
  const layout = splitTrailingTag(source);
  const dir = existsSync(source) ? source : layout.name;
  if (existsSync(join(dir, 'oci-layout')))
    return unpacked(await openLayoutImage(dir, existsSync(source) ? undefined : layout.tag));
  if (existsSync(source)) {
    throw new ActionError(
      'OPKIT_BUNDLE_SOURCE_INVALID',
      `${source}: not a directory (a bundle directory or an OCI layout of a bundle image)`,
    );
  }
  try {
    parseReference(source);
  } catch (err) {
    throw new ActionError(
      'OPKIT_BUNDLE_SOURCE_INVALID',
      `${source}: neither a bundle directory, an OCI layout nor an image reference (${(err as Error).message})`,
    );
  }
  if (options.registry === undefined) {
    throw new ActionError(
      'OPKIT_BUNDLE_SOURCE_INVALID',
      `${source}: an image reference needs a registry client`,
    );
  }
  return withPulledImage(options.registry(), source, unpacked, undefined, {
    maxBytes: BUNDLE_IMAGE_LIMITS.pullBytes,
    timeoutMs: BUNDLE_IMAGE_LIMITS.pullTimeoutMs,
  });
}

async function unpackBundleImage<T>(
  image: LayoutImage,
  source: string,
  use: (dir: string) => T | Promise<T>,
): Promise<T> {
  const [{ imageLabels }, { unpackImageLayers }] = await Promise.all([
    import('@opkit/oci'),
    import('./image-unpack.js'),
  ]);
  if (!imageLabels(image)[BUNDLE_MEDIATYPE_LABEL]) {
    throw new ActionError(
      'OPKIT_BUNDLE_SOURCE_INVALID',
      `${source}: not a bundle image (no label ${BUNDLE_MEDIATYPE_LABEL})`,
    );
  }
  const root = await mkdtemp(join(tmpdir(), 'opkit-bundle-'));
  try {
    await unpackImageLayers(image, root, {
      maxBytes: BUNDLE_IMAGE_LIMITS.unpackBytes,
      maxEntries: BUNDLE_IMAGE_LIMITS.unpackEntries,
    }).catch((err: unknown) => {
      throw new ActionError('OPKIT_IMAGE_INVALID', `${source}: cannot unpack ${(err as Error).message}`);
    });
    return await use(root);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
