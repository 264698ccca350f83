import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATALOG_CONFIGS_LABEL, imageLabels, type LayoutImage, type OciImage } from '@opkit/oci';
import { resolveWithinRoot } from '@opkit/oci/within-root';
import { ActionError } from './errors.js';
import { type UnpackOptions, unpackImageLayers } from './image-unpack.js';

/** A catalog directory (unpacked from an image into a temp dir, or given as it is) and how to clean up after it. */
export interface UnpackedCatalog {
  readonly dir: string;
  readonly description: string;
  dispose(): Promise<void>;
}

/**
 * Unpacks a catalog image's `/configs` (the directory its index.configs label names) into a temp dir, which
 * is removed when the unpacking fails or is aborted.
 */
export async function unpackCatalogImage(
  image: OciImage | LayoutImage,
  where: string,
  options: UnpackOptions = {},
): Promise<UnpackedCatalog> {
  const configs = imageLabels(image)[CATALOG_CONFIGS_LABEL];
  if (!configs) {
    throw new ActionError(
      'OPKIT_CATALOG_IMAGE_INVALID',
      `${where}: not a catalog image: the label ${CATALOG_CONFIGS_LABEL} is missing`,
    );
  }
  const root = await mkdtemp(join(tmpdir(), 'opkit-serve-'));
  try {
    await unpackImageLayers(image, root, options);
  } catch (err) {
    await rm(root, { recursive: true, force: true });
    options.signal?.throwIfAborted();
    throw new ActionError('OPKIT_CATALOG_IMAGE_INVALID', `${where}: cannot unpack ${(err as Error).message}`);
  }
  // The label is the image's word too: the directory it names is resolved within the image, links included.
  let inImage: string | undefined;
  try {
    inImage = resolveWithinRoot(root, configs.replace(/^\/+/, ''));
  } catch {
    inImage = '\0'; // a loop of links: no directory
  }
  const dir = inImage === undefined ? undefined : join(root, inImage);
  if (dir === undefined || !existsSync(dir) || !statSync(dir).isDirectory()) {
    await rm(root, { recursive: true, force: true });
    const why = dir === undefined ? 'leads out of the image' : 'is no directory of the image';
    throw new ActionError(
      'OPKIT_CATALOG_IMAGE_INVALID',
      `${where}: ${configs} (${CATALOG_CONFIGS_LABEL}) ${why}`,
    );
  }
  return {
    dir,
    description: `${where} (${image.digest})`,
    dispose: () => rm(root, { recursive: true, force: true }),
  };
}
