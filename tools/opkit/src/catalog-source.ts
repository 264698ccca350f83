import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openLayoutImage, parseReference, splitTrailingTag } from '@opkit/oci';
import { type UnpackedCatalog, unpackCatalogImage } from '@opkit/olm/action/catalog-image';
import type { UnpackLimits } from '@opkit/olm/action/image-unpack';
import { withPulledImage } from '@opkit/olm/action/pulled-image';
import type { Catalog, CatalogFileCache } from '@opkit/olm/catalog/declcfg';
import type { CatalogModel } from '@opkit/olm/catalog/model';
import { catalogDirectory } from './catalog-directory.js';
import { CliError, reportLine } from './cli-error.js';
import { GIT_SOURCE_PREFIX, readGitCatalog } from './git-catalog-source.js';
import { cliRegistryClient } from './registry-client.js';

/**
 * Resolves what `catalog serve` or `catalog diff` was given: a file-based catalog directory, an OCI image layout
 * directory as `opkit catalog image` writes it (`<layout>` or `<layout>:<tag>`), a directory as a revision of the
 * current git repository has it (`git:<revision>:<path>`, read into a temp dir) or a registry reference pulled
 * anonymously.
 * Images are unpacked as their layers are read from disk (a registry's pulled to a temporary layout first), so
 * memory does not grow with them; `signal` stops the pull, the unpacking or the reading of a git tree and leaves
 * no temp dir behind. A
 * directory is served as it is (its `dispose` does nothing).
 */
export async function resolveCatalogSource(
  source: string,
  options: { plainHttp?: boolean; limits?: UnpackLimits; signal?: AbortSignal } = {},
): Promise<UnpackedCatalog> {
  const unpack = { ...options.limits, ...(options.signal === undefined ? {} : { signal: options.signal }) };
  if (source.startsWith(GIT_SOURCE_PREFIX) && !existsSync(source))
    return readGitCatalog(source, {
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  const directory = catalogDirectory(source);
  if (directory !== undefined) return directory;
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

/**
 * The model of the catalog a source names (any form {@link resolveCatalogSource} takes), loaded and converted as
 * opm converts it; a catalog that does not load or convert fails with one line naming `role` ("old catalog") and
 * the source. Whatever the source unpacked is removed before this returns.
 */
export async function loadSourceModel(
  source: string,
  role: string,
  options: {
    plainHttp?: boolean;
    limits?: UnpackLimits;
    signal?: AbortSignal;
    /** Shared by the loads of two revisions, so that the files they share are decoded once. */
    fileCache?: CatalogFileCache;
  } = {},
): Promise<CatalogModel> {
  const { convertToModel, loadCatalog } = await import('@opkit/olm');
  const named = (message: string) => new CliError('OPKIT_CATALOG_INVALID', `${role} ${source}: ${message}`);
  let resolved: UnpackedCatalog;
  try {
    resolved = await resolveCatalogSource(source, options);
  } catch (err) {
    throw named((err as Error).message.replace(`${source}: `, ''));
  }
  try {
    let catalog: Catalog;
    try {
      catalog = await loadCatalog(
        resolved.dir,
        options.fileCache === undefined ? {} : { fileCache: options.fileCache },
      );
    } catch (err) {
      throw named(reportLine(err as Error).replaceAll(resolved.dir, '.'));
    }
    const problems: string[] = [];
    const model = convertToModel(catalog, (_code, message) => problems.push(message));
    if (problems.length > 0)
      throw named(
        `${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more problems)` : ''}`,
      );
    return model;
  } finally {
    await resolved.dispose();
  }
}
