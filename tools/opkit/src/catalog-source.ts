import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CATALOG_CONFIGS_LABEL, imageLabels, type OciImage, parseReference, readLayout } from '@opkit/oci';
import { extract } from 'tar';
import { CliError } from './cli-error.js';
import { cliRegistryClient } from './registry-client.js';

/** A catalog directory to serve, and how to clean up after it (images are unpacked into a temp dir). */
export interface CatalogSource {
  readonly dir: string;
  readonly description: string;
  dispose(): Promise<void>;
}

/** How much a catalog image may unpack to: catalogs are megabytes; a layer that inflates beyond is refused. */
export interface UnpackLimits {
  /** @default 2 GiB */
  readonly maxBytes?: number;
  /** @default 1,000,000 */
  readonly maxEntries?: number;
}

async function unpackConfigs(
  image: OciImage,
  where: string,
  limits: UnpackLimits = {},
): Promise<CatalogSource> {
  const maxBytes = limits.maxBytes ?? 2 * 1024 ** 3;
  const maxEntries = limits.maxEntries ?? 1_000_000;
  const configs = imageLabels(image)[CATALOG_CONFIGS_LABEL];
  if (!configs) {
    throw new CliError(
      'OPKIT_CATALOG_IMAGE_INVALID',
      `${where}: not a catalog image: the label ${CATALOG_CONFIGS_LABEL} is missing`,
    );
  }
  const root = await mkdtemp(join(tmpdir(), 'opkit-serve-'));
  try {
    let bytes = 0;
    let entries = 0;
    let refusal: string | undefined;
    for (const layer of image.layers) {
      // node-tar strips absolute paths and refuses `..` and links out of `cwd`; sizes are bounded here.
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
  } catch (err) {
    await rm(root, { recursive: true, force: true });
    throw new CliError(
      'OPKIT_CATALOG_IMAGE_INVALID',
      `${where}: cannot unpack a layer: ${(err as Error).message}`,
    );
  }
  const dir = join(root, configs.replace(/^\/+/, ''));
  if (!existsSync(dir)) {
    await rm(root, { recursive: true, force: true });
    throw new CliError(
      'OPKIT_CATALOG_IMAGE_INVALID',
      `${where}: the image has no ${configs} directory (${CATALOG_CONFIGS_LABEL})`,
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
 */
export async function resolveCatalogSource(
  source: string,
  options: { plainHttp?: boolean; limits?: UnpackLimits } = {},
): Promise<CatalogSource> {
  const layoutRef = /^(.*?)(?::([\w][\w.-]{0,127}))?$/.exec(source)!;
  const layoutDir = existsSync(source) ? source : layoutRef[1]!;
  if (existsSync(layoutDir) && statSync(layoutDir).isDirectory()) {
    if (existsSync(join(layoutDir, 'oci-layout'))) {
      const tag = existsSync(source) ? undefined : layoutRef[2];
      return unpackConfigs(await readLayout(layoutDir, tag), source, options.limits);
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
  const image = await client.pull(source).finally(() => client.close());
  return unpackConfigs(image, source, options.limits);
}
