import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CATALOG_CONFIGS_LABEL,
  imageLabels,
  type LayoutImage,
  type OciImage,
  openLayoutImage,
  parseReference,
  splitTrailingTag,
} from '@opkit/oci';
import { resolveWithinRoot } from '@opkit/oci/within-root';
import { CliError } from './cli-error.js';
import { type UnpackLimits, type UnpackOptions, unpackImageLayers } from './image-unpack.js';
import { withPulledImage } from './pulled-image.js';
import { cliRegistryClient } from './registry-client.js';

/** A catalog directory to serve, and how to clean up after it (images are unpacked into a temp dir). */
export interface CatalogSource {
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
): Promise<CatalogSource> {
  const configs = imageLabels(image)[CATALOG_CONFIGS_LABEL];
  if (!configs) {
    throw new CliError(
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
    throw new CliError('OPKIT_CATALOG_IMAGE_INVALID', `${where}: cannot unpack ${(err as Error).message}`);
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
    throw new CliError(
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

/**
 * Resolves what `catalog serve` was given: a file-based catalog directory, an OCI image layout directory as
 * `opkit catalog image` writes it (`<layout>` or `<layout>:<tag>`), or a registry reference pulled anonymously.
 * Images are unpacked as their layers are read from disk (a registry's pulled to a temporary layout first), so
 * memory does not grow with them; `signal` stops the pull or the unpacking and leaves no temp dir behind.
 */
export async function resolveCatalogSource(
  source: string,
  options: { plainHttp?: boolean; limits?: UnpackLimits; signal?: AbortSignal } = {},
): Promise<CatalogSource> {
  const unpack = { ...options.limits, ...(options.signal === undefined ? {} : { signal: options.signal }) };
  const layoutRef = splitTrailingTag(source);
  const layoutDir = existsSync(source) ? source : layoutRef.name;
  if (existsSync(layoutDir) && statSync(layoutDir).isDirectory()) {
    if (existsSync(join(layoutDir, 'oci-layout'))) {
      const tag = existsSync(source) ? undefined : layoutRef.tag;
      return unpackCatalogImage(await openLayoutImage(layoutDir, tag), source, unpack);
    }
    return { dir: source, description: source, dispose: async () => {} };
  }
  if (existsSync(source)) throw new CliError('OPKIT_CATALOG_SOURCE_INVALID', `${source}: not a directory`);
  try {
    parseReference(source);
  } catch (err) {
    throw new CliError(
      'OPKIT_CATALOG_SOURCE_INVALID',
      `${source}: neither a catalog directory, an OCI layout nor an image reference (${(err as Error).message})`,
    );
  }
  const client = cliRegistryClient({ plainHttp: options.plainHttp ?? false });
  try {
    return await withPulledImage(
      client,
      source,
      (image) => unpackCatalogImage(image, source, unpack),
      options.signal,
    );
  } finally {
    client.close();
  }
}
