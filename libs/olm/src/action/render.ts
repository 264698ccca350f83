import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LayoutImage, RegistryClient } from '@opkit/oci';
import { loadCatalog } from '../catalog/declcfg/load.js';
import type { MigrationLevel } from '../catalog/declcfg/migrations.js';
import { type BundleBlob, type Catalog, emptyCatalog } from '../catalog/declcfg/types.js';
import {
  type CatalogFormat,
  serializeCatalog,
  serializeCatalogDocuments,
  writeCatalog,
} from '../catalog/declcfg/write.js';
import { ActionError } from './errors.js';

/** The label every registry+v1 bundle image carries (its metadata/annotations.yaml). */
const BUNDLE_MEDIATYPE_LABEL = 'operators.operatorframework.io.bundle.mediatype.v1';

/** How images named by reference are pulled. */
export interface RenderImageOptions {
  /** Pull image references over HTTP (a registry on loopback), as opm's `--use-http`. */
  readonly plainHttp?: boolean;
  /**
   * The registry client image references are pulled with (left open). The CLI always gives its own (its
   * credentials, redaction and proxy rules); the default, for library users, is one with docker's and
   * podman's login files' credentials, closed when the render ends.
   */
  readonly registry?: RegistryClient;
}

export interface RenderSourceOptions extends RenderImageOptions {
  /** Run opm's migrations up to this level on what was rendered. */
  readonly migrateLevel?: MigrationLevel;
}

/** opm's migrations up to `level`; their code, and the bundle renderer it uses, loads only when asked for. */
async function migrate(catalog: Catalog, level: MigrationLevel | undefined): Promise<Catalog> {
  if (level === undefined) return catalog;
  const { migrateCatalog } = await import('../catalog/declcfg/migrations.js');
  return migrateCatalog(catalog, level);
}

/** One rendered source, and whether it was a catalog (what `migrate` accepts) or a bundle. */
interface Rendered {
  readonly catalog: Catalog;
  readonly kind: 'catalog' | 'bundle';
}

/** A bundle directory has its annotations where operator-sdk and opm look for them. */
function isBundleDirectory(dir: string): boolean {
  return existsSync(join(dir, 'metadata', 'annotations.yaml'));
}

/** A bundle rendered as a one-bundle catalog; the bundle readers load only when a bundle is rendered. */
async function bundleCatalog(dir: string, image: string, where: string): Promise<Catalog> {
  const [{ renderBundle }, { toCatalogBundle }] = await Promise.all([
    import('../bundle/render.js'),
    import('../bundle/catalog-bundle.js'),
  ]);
  const catalog = emptyCatalog();
  catalog.bundles.push(toCatalogBundle(renderBundle(dir, { image }), { file: where, index: 0 }));
  return catalog;
}

/**
 * A catalog image's `/configs`, or a bundle image rendered as opm renders a bundle image: its manifests
 * inline and `image` set to the reference it was given.
 */
async function renderImage(image: LayoutImage, reference: string): Promise<Rendered> {
  const [{ CATALOG_CONFIGS_LABEL, imageLabels }, { unpackCatalogImage }, { unpackImageLayers }] =
    await Promise.all([import('@opkit/oci'), import('./catalog-image.js'), import('./image-unpack.js')]);
  const labels = imageLabels(image);
  if (labels[CATALOG_CONFIGS_LABEL]) {
    const unpacked = await unpackCatalogImage(image, reference);
    try {
      return { catalog: await loadCatalog(unpacked.dir), kind: 'catalog' };
    } finally {
      await unpacked.dispose();
    }
  }
  if (labels[BUNDLE_MEDIATYPE_LABEL]) {
    const root = await mkdtemp(join(tmpdir(), 'opkit-render-'));
    try {
      await unpackImageLayers(image, root).catch((err: unknown) => {
        throw new ActionError('OPKIT_IMAGE_INVALID', `${reference}: cannot unpack ${(err as Error).message}`);
      });
      return { catalog: await bundleCatalog(root, reference, reference), kind: 'bundle' };
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }
  throw new ActionError(
    'OPKIT_IMAGE_INVALID',
    `${reference}: neither a catalog image (label ${CATALOG_CONFIGS_LABEL}) nor a bundle image (label ${BUNDLE_MEDIATYPE_LABEL})`,
  );
}

/**
 * What `render` and `migrate` take: a file-based catalog directory, a bundle directory, an OCI image layout
 * (`<layout>` or `<layout>:<tag>`, as `opkit catalog image` and `bundle build-all` write them) or an image
 * reference in a registry, holding a catalog or a bundle.
 */
async function renderSource(source: string, options: RenderSourceOptions): Promise<Rendered> {
  // A catalog or bundle directory, what most renders read, needs none of the image and registry code.
  if (existsSync(source) && statSync(source).isDirectory() && !existsSync(join(source, 'oci-layout'))) {
    if (isBundleDirectory(source))
      return { catalog: await bundleCatalog(source, '', source), kind: 'bundle' };
    return { catalog: await loadCatalog(source), kind: 'catalog' };
  }
  const [
    { dockerCredentials, openLayoutImage, parseReference, RegistryClient, splitTrailingTag },
    { withPulledImage },
  ] = await Promise.all([import('@opkit/oci'), import('./pulled-image.js')]);
  const layout = splitTrailingTag(source);
  const dir = existsSync(source) ? source : layout.name;
  const tag = existsSync(source) ? undefined : layout.tag;
  if (existsSync(dir) && statSync(dir).isDirectory()) {
    if (existsSync(join(dir, 'oci-layout'))) return renderImage(await openLayoutImage(dir, tag), source);
    if (tag === undefined && isBundleDirectory(dir))
      return { catalog: await bundleCatalog(dir, '', dir), kind: 'bundle' };
    if (tag === undefined) return { catalog: await loadCatalog(dir), kind: 'catalog' };
  }
  if (existsSync(source)) {
    throw new ActionError(
      'OPKIT_RENDER_SOURCE_INVALID',
      `${source}: not a directory (a catalog, a bundle or an OCI layout)`,
    );
  }
  try {
    parseReference(source);
  } catch (err) {
    throw new ActionError(
      'OPKIT_RENDER_SOURCE_INVALID',
      `${source}: neither a catalog or bundle directory, an OCI layout nor an image reference (${(err as Error).message})`,
    );
  }
  // Layers are pulled to disk and unpacked from there: memory does not grow with the image.
  if (options.registry !== undefined)
    return withPulledImage(options.registry, source, (image) => renderImage(image, source));
  const client = new RegistryClient({
    credentials: dockerCredentials(),
    plainHttp: options.plainHttp ?? false,
  });
  try {
    return await withPulledImage(client, source, (image) => renderImage(image, source));
  } finally {
    client.close();
  }
}

/**
 * The `olm.bundle` of a bundle image (in a registry or an OCI layout), as opm renders the image a template
 * names: manifests inline, `image` the reference.
 */
export async function renderBundleImage(
  reference: string,
  options: RenderImageOptions = {},
): Promise<BundleBlob> {
  const { catalog, kind } = await renderSource(reference, options);
  const [bundle] = catalog.bundles;
  if (kind !== 'bundle' || !bundle) {
    throw new ActionError('OPKIT_RENDER_SOURCE_INVALID', `${reference}: a catalog, not a bundle image`);
  }
  return bundle;
}

/**
 * `opkit catalog render`: catalogs and bundles, from directories, OCI layouts or registries, merged into one
 * stream as `opm render -o json|yaml` writes it (same order, same bytes), after the migrations asked for.
 */
export async function renderSources(
  sources: readonly string[],
  format: CatalogFormat,
  options: RenderSourceOptions = {},
): Promise<string> {
  return serializeCatalog(await renderedCatalog(sources, options), { format });
}

/**
 * {@link renderSources} a document at a time, each encoded as it is asked for: what a command writes as it
 * goes, so that it never holds the whole output as well as the catalog.
 */
export async function renderSourcesDocuments(
  sources: readonly string[],
  format: CatalogFormat,
  options: RenderSourceOptions = {},
): Promise<Iterable<string>> {
  return serializeCatalogDocuments(await renderedCatalog(sources, options), { format });
}

async function renderedCatalog(sources: readonly string[], options: RenderSourceOptions): Promise<Catalog> {
  const merged = emptyCatalog();
  for (const source of sources) {
    const { catalog } = await renderSource(source, options);
    merged.packages.push(...catalog.packages);
    merged.channels.push(...catalog.channels);
    merged.bundles.push(...catalog.bundles);
    merged.deprecations.push(...catalog.deprecations);
    merged.others.push(...catalog.others);
  }
  return await migrate(merged, options.migrateLevel);
}

/**
 * `opkit catalog migrate`: a catalog (directory, OCI layout or image) written as a directory of one
 * `<package>/catalog.<ext>` per package, as `opm migrate` writes it, after the migrations asked for.
 * The output directory must be empty or absent, as opm requires.
 *
 * @returns the files written, relative to `outDir`
 */
export async function migrateSource(
  source: string,
  outDir: string,
  format: CatalogFormat,
  options: RenderSourceOptions = {},
): Promise<string[]> {
  const existing = await readdir(outDir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw new ActionError(
      'OPKIT_ARGUMENT_INVALID',
      `${outDir}: cannot read the output directory: ${err.message}`,
    );
  });
  if (existing.length > 0)
    throw new ActionError('OPKIT_ARGUMENT_INVALID', `output dir "${outDir}" must be empty`);
  const { catalog, kind } = await renderSource(source, options);
  if (kind !== 'catalog') {
    throw new ActionError(
      'OPKIT_RENDER_SOURCE_INVALID',
      `${source}: a bundle, not a catalog: migrate takes catalogs only`,
    );
  }
  // A local source (a directory, or a layout `<dir>:<tag>`) is an input the output may not hold.
  const local = existsSync(source) ? source : source.slice(0, Math.max(0, source.lastIndexOf(':')));
  return writeCatalog(outDir, await migrate(catalog, options.migrateLevel), {
    format,
    output: {
      name: '<out-dir>',
      inputs: local !== '' && existsSync(local) ? [{ name: '<source>', path: local }] : [],
    },
  });
}
