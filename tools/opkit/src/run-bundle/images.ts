// The registry side of `run bundle`: the bundle image read back as opm renders it, and the one-package
// catalog image pushed beside it and read back for an upgrade.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  catalogImage,
  formatReference,
  type LayoutImage,
  parseReference,
  type RegistryClient,
} from '@opkit/oci';
import {
  type BundleBlob,
  type Catalog,
  formatValidationResults,
  type LoadedBundle,
  loadBundle,
  loadCatalog,
  renderLoadedBundle,
  toCatalogBundle,
  validateCatalog,
  writeCatalog,
} from '@opkit/olm';
import { unpackCatalogImage } from '@opkit/olm/action/catalog-image';
import { unpackImageLayers } from '@opkit/olm/action/image-unpack';
import { withPulledImage } from '@opkit/olm/action/pulled-image';
import { CliError } from '../cli-error.js';

/** A bundle image as `run bundle` needs it. */
export interface PulledBundle {
  /** The bundle image by digest, as the catalog names it (a tag could move under OLM). */
  readonly image: string;
  readonly bundle: LoadedBundle;
  /** The CSV's name (checked to be there). */
  readonly csvName: string;
  /** The `olm.bundle` blob, as `opm render <image>` renders it. */
  readonly blob: BundleBlob;
}

/** Bundle images are a few megabytes; anything far beyond is not a bundle. */
const BUNDLE_LIMITS = { maxBytes: 256 * 1024 ** 2, maxEntries: 10_000 };

/**
 * Pulls a bundle image (its layers to disk), reads its package, channels and CSV, and renders its catalog
 * entry by digest.
 */
export async function pullBundle(client: RegistryClient, reference: string): Promise<PulledBundle> {
  let ref: ReturnType<typeof parseReference>;
  try {
    ref = parseReference(reference);
  } catch (err) {
    throw new CliError(
      'OPKIT_ARGUMENT_INVALID',
      `${reference}: not an image reference: ${(err as Error).message}`,
    );
  }
  return withPulledImage(client, reference, (image) => readBundleImage(image, ref, reference));
}

/** The bundle of a pulled bundle image, unpacked into a temp dir removed afterwards. */
async function readBundleImage(
  image: LayoutImage,
  ref: ReturnType<typeof parseReference>,
  reference: string,
): Promise<PulledBundle> {
  const byDigest = formatReference({
    registry: ref.registry,
    repository: ref.repository,
    digest: image.digest,
  });
  const root = await mkdtemp(join(tmpdir(), 'opkit-run-bundle-'));
  try {
    try {
      await unpackImageLayers(image, root, BUNDLE_LIMITS);
    } catch (err) {
      throw new CliError(
        'OPKIT_BUNDLE_IMAGE_INVALID',
        `${reference}: cannot unpack ${(err as Error).message}`,
      );
    }
    let bundle: LoadedBundle;
    try {
      bundle = loadBundle(root);
    } catch (err) {
      throw new CliError(
        'OPKIT_BUNDLE_IMAGE_INVALID',
        `${reference}: not a registry+v1 bundle image: ${(err as Error).message.replaceAll(root, '')}`,
      );
    }
    if (!bundle.csv.metadata?.name) {
      throw new CliError('OPKIT_BUNDLE_IMAGE_INVALID', `${reference}: the bundle's CSV has no metadata.name`);
    }
    const blob = toCatalogBundle(renderLoadedBundle(bundle, { image: byDigest }), {
      file: reference,
      index: 0,
    });
    return { image: byDigest, bundle, csvName: bundle.csv.metadata.name, blob };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * Validates the catalog as opm would, images it (`/configs`, the index.configs label, FROM scratch: OLM
 * serves it with its own opm) and pushes it; returns the pushed image by digest.
 */
export async function pushCatalog(
  client: RegistryClient,
  catalog: Catalog,
  reference: string,
): Promise<string> {
  const problems = validateCatalog(catalog).filter((r) => r.level === 'error');
  if (problems.length > 0) {
    throw new CliError(
      'OPKIT_CATALOG_INVALID',
      `the catalog for ${reference} is invalid: ${formatValidationResults(problems).trim()}`,
    );
  }
  const work = await mkdtemp(join(tmpdir(), 'opkit-run-bundle-catalog-'));
  try {
    const dir = join(work, 'configs');
    await writeCatalog(dir, catalog);
    const image = await catalogImage(dir);
    const pushed = await client.push(image, reference);
    const { registry, repository } = parseReference(pushed.reference);
    return formatReference({ registry, repository, digest: pushed.digest });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Pulls a catalog image `run bundle` pushed and loads its catalog. */
export async function pullCatalog(client: RegistryClient, reference: string): Promise<Catalog> {
  return withPulledImage(client, reference, async (image) => {
    const source = await unpackCatalogImage(image, reference, BUNDLE_LIMITS);
    try {
      return await loadCatalog(source.dir);
    } finally {
      await source.dispose();
    }
  });
}
