import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openLayoutImage, parseReference, splitTrailingTag } from '@opkit/oci';
import { type UnpackedCatalog, unpackCatalogImage } from '@opkit/olm/action/catalog-image';
import type { UnpackLimits } from '@opkit/olm/action/image-unpack';
import { withPulledImage } from '@opkit/olm/action/pulled-image';
import { CliError } from './cli-error.js';
import { GIT_SOURCE_PREFIX, readGitCatalog } from './git-catalog-source.js';
import { cliRegistryClient } from './registry-client.js';

/**
 * Resolves what `catalog serve` or `catalog diff` was given: a file-based catalog directory, an OCI image layout
 * directory as `opkit catalog image` writes it (`<layout>` or `<layout>:<tag>`), a directory as a revision of the
 * current git repository has it (`git:<revision>:<path>`, read into a temp dir) or a registry reference pulled
 * anonymously.
 * Images are unpacked as their layers are read from disk (a registry's pulled to a temporary layout first), so
 * memory does not grow with them; `signal` stops the pull or the unpacking and leaves no temp dir behind. A
 * directory is served as it is (its `dispose` does nothing).
 */
export async function resolveCatalogSource(
  source: string,
  options: { plainHttp?: boolean; limits?: UnpackLimits; signal?: AbortSignal } = {},
): Promise<UnpackedCatalog> {
  const unpack = { ...options.limits, ...(options.signal === undefined ? {} : { signal: options.signal }) };
  if (source.startsWith(GIT_SOURCE_PREFIX) && !existsSync(source))
    return readGitCatalog(source, options.limits === undefined ? {} : { limits: options.limits });
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
