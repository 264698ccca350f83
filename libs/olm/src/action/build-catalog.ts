import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  bundleImage,
  namesRegistryHost,
  type OutputGuard,
  type RegistryClient,
  splitTrailingTag,
} from '@opkit/oci';
import { toCatalogBundle } from '../bundle/catalog-bundle.js';
import { type LoadedBundle, loadBundle } from '../bundle/load.js';
import { renderLoadedBundle } from '../bundle/render.js';
import { TemplateError } from '../catalog/declcfg/errors.js';
import { type BundleBlob, type Catalog, emptyCatalog } from '../catalog/declcfg/types.js';
import { writeCatalog } from '../catalog/declcfg/write.js';
import { formatValidationResults } from '../catalog/model/format.js';
import { validateCatalog } from '../catalog/model/validate.js';
import { readTemplate, renderTemplate } from '../catalog/template/templates.js';
import { ActionError } from './errors.js';
import type { OperatorRelease } from './operator-release.js';
import { bundleDisagreements, releaseDisagreements } from './release-identity.js';
import type { RenderImageOptions } from './render.js';
import { templateBundleReferences } from './template-references.js';

/** Where the bundles' images were pushed (`opkit bundle push`), for a catalog that names them by digest. */
export interface BundleImages {
  /** `<registry>/<namespace>`: each bundle is `<repository>/<package>-bundle:v<version>`. */
  readonly repository: string;
  readonly client: RegistryClient;
}

/**
 * Renders every bundle directory under `bundlesDir` (`<package>/<version>/`) as opm renders it. Without
 * `images`: as opm renders a directory, empty image, manifests inline as `olm.bundle.object`, which is what a
 * cluster without bundle images needs. With `images`: as opm renders the pushed image by digest — the same
 * properties, `image` naming the digest and the bundle image among the related images — after checking that
 * the registry holds exactly this bundle's image. Keys are the paths as templates name them
 * (`bundles/<package>/<version>`, relative to the working directory); `loaded` keeps each bundle as read.
 */
async function renderBundles(
  bundlesDir: string,
  images?: BundleImages,
): Promise<{ blobs: Map<string, BundleBlob>; loaded: Map<string, LoadedBundle> }> {
  const rendered = new Map<string, BundleBlob>();
  const loaded = new Map<string, LoadedBundle>();
  for (const pkg of readdirSync(bundlesDir).filter((p) => statSync(join(bundlesDir, p)).isDirectory())) {
    for (const version of readdirSync(join(bundlesDir, pkg))) {
      const dir = join(bundlesDir, pkg, version);
      if (!statSync(dir).isDirectory()) continue;
      // Loaded once for the blob, the labels and the release check; imaging it for the digest check reads
      // its files again, as the image holds every file of the directory, not only those the loader reads.
      const bundle = loadBundle(dir);
      const image = images
        ? await pushedBundleImage(dir, bundle.annotations, pkg, version, images)
        : undefined;
      const blob = toCatalogBundle(renderLoadedBundle(bundle, image ? { image } : {}), {
        file: dir,
        index: 0,
      });
      rendered.set(dir, blob);
      loaded.set(dir, bundle);
    }
  }
  return { blobs: rendered, loaded };
}

/** The digest reference of a bundle's pushed image, refused when the registry holds other content. */
async function pushedBundleImage(
  dir: string,
  annotations: Readonly<Record<string, string>>,
  pkg: string,
  version: string,
  images: BundleImages,
): Promise<string> {
  const repository = `${images.repository.replace(/\/+$/, '')}/${pkg}-bundle`;
  const reference = `${repository}:v${version}`;
  const local = await bundleImage(dir, annotations);
  let remote: string;
  try {
    remote = (await images.client.resolve(reference)).digest;
  } catch (error) {
    throw new ActionError(
      'OPKIT_BUNDLE_IMAGE_MISSING',
      `${reference}: ${(error as Error).message} (push the bundle images first: nx run bundle:push)`,
    );
  }
  if (remote !== local.digest) {
    throw new ActionError(
      'OPKIT_BUNDLE_IMAGE_STALE',
      `${reference} is ${remote}, but ${dir} images as ${local.digest}: push the bundle images again (nx run bundle:push)`,
    );
  }
  return `${repository}@${remote}`;
}

/**
 * Whether a template's bundle reference names an image rather than a bundle directory: an OCI layout
 * (`<dir>[:<tag>]`), or a reference whose first component is a registry host (`quay.io/…`, `localhost:5000/…`,
 * as Docker tells hosts from paths). `bundles/<package>/<version>` is a directory, never Docker Hub.
 */
function namesAnImage(reference: string): boolean {
  if (existsSync(join(splitTrailingTag(reference).name, 'oci-layout'))) return true;
  return namesRegistryHost(reference);
}

/**
 * Renders the bundle images a template names that are no rendered bundle directory yet (a registry reference
 * or an OCI layout, pulled and rendered as opm renders them — a substitutes template's substitutes are
 * images, for one), each once, into `bundles`. An image that cannot be rendered is kept with its failure, for
 * the render to report where the template names it.
 */
async function resolveTemplateImages(
  references: readonly string[],
  bundles: Map<string, BundleBlob>,
  failures: Map<string, Error>,
  options: RenderImageOptions,
): Promise<void> {
  const images = references.filter((r) => !bundles.has(r) && !failures.has(r) && namesAnImage(r));
  if (images.length === 0) return;
  const { renderBundleImage } = await import('./render.js');
  for (const reference of images) {
    try {
      bundles.set(reference, await renderBundleImage(reference, options));
    } catch (error) {
      failures.set(reference, error as Error);
    }
  }
}

/**
 * The rendered bundle directories a template names by another path than `<bundlesDir>/<package>/<version>`:
 * a path resolved as opm resolves it, from the working directory, or else from the template's own
 * directory (`../../bundles/<package>/<version>` beside the catalog, wherever the command runs).
 */
function bundleDirectoryAliases(
  file: string,
  references: readonly string[],
  bundles: ReadonlyMap<string, BundleBlob>,
): Map<string, BundleBlob> {
  const aliases = new Map<string, BundleBlob>();
  const unnamed = references.filter((reference) => !bundles.has(reference));
  if (unnamed.length === 0) return aliases;
  const byPath = new Map([...bundles].map(([key, blob]) => [resolve(key), blob]));
  for (const reference of unnamed) {
    const blob = byPath.get(resolve(reference)) ?? byPath.get(resolve(dirname(file), reference));
    if (blob !== undefined) aliases.set(reference, blob);
  }
  return aliases;
}

/**
 * Renders one template, read once: the bundle images it names are resolved first, then it is rendered once.
 * A bundle it names that is neither a bundle directory nor an image that rendered is opm's unknown-bundle
 * error, with the pull's reason when it was an image.
 */
async function renderTemplateFile(
  file: string,
  bundles: Map<string, BundleBlob>,
  failures: Map<string, Error>,
  options: RenderImageOptions,
): Promise<{ catalog: Catalog; schema: string }> {
  const template = readTemplate(readFileSync(file), { file });
  const references = templateBundleReferences(template, file);
  const aliases = bundleDirectoryAliases(file, references, bundles);
  const images = references.filter((reference) => !aliases.has(reference));
  await resolveTemplateImages(images, bundles, failures, options);
  const named = aliases.size === 0 ? bundles : new Map([...bundles, ...aliases]);
  try {
    return { catalog: renderTemplate(template.document, named, { file }), schema: template.schema };
  } catch (error) {
    const reference = error instanceof TemplateError ? error.reference : undefined;
    const failure = reference === undefined ? undefined : failures.get(reference);
    if (failure === undefined) throw error;
    throw new ActionError('OPKIT_TEMPLATE_BUNDLE', `${(error as Error).message}: ${failure.message}`);
  }
}

/** Options of {@link buildCatalog}. */
export interface BuildCatalogOptions {
  /** Template files, one per package (olm.template.basic, olm.semver, olm.template.substitutes). */
  readonly templates: readonly string[];
  /** Bundle directories, as `<package>/<version>/`; templates name them `<bundlesDir>/<package>/<version>`. */
  readonly bundlesDir: string;
  /** The catalog directory: only the directories of the packages the templates render are replaced. */
  readonly outDir: string;
  /** Name each bundle by its pushed image instead of inline manifests only (`--bundle-images`). */
  readonly bundleImages?: BundleImages;
  /** Reach registries over HTTP (bundle images the templates name). */
  readonly plainHttp?: boolean;
  /**
   * The registry client for bundle images the templates name (left open). The CLI gives its own; the default,
   * for library users, is one with the login files' credentials.
   */
  readonly registry?: RegistryClient;
  /**
   * The operators' release identity (`opkit` in their package.json): the build fails, naming the file and
   * the field, where a template or the current version's bundle disagrees with it.
   */
  readonly releases?: readonly OperatorRelease[];
  /**
   * The output-directory rule's view of `outDir`: the flag naming it, `force`, and inputs besides the
   * templates and the bundles, which are always inputs.
   */
  readonly output?: OutputGuard;
}

/** What {@link buildCatalog} wrote. */
export interface BuiltCatalog {
  /** The catalog written, in the templates' order. */
  readonly catalog: Catalog;
  /** The directory written and the names it holds. */
  readonly summary: CatalogBuildResult;
}

/**
 * Builds a file-based catalog from templates (one per package) and the rendered bundles, and writes the
 * directories of the packages rendered into `outDir` (other packages' directories there stay as they are).
 * Each bundle directory is loaded once (and read once more to image it with `bundleImages`); each bundle
 * image a template names is pulled once.
 */
export async function buildCatalog(o: BuildCatalogOptions): Promise<BuiltCatalog> {
  const { blobs: bundles, loaded } = await renderBundles(o.bundlesDir, o.bundleImages);
  const failures = new Map<string, Error>();
  const merged = emptyCatalog();
  const disagreements: string[] = [];
  for (const file of o.templates) {
    const { catalog: rendered, schema } = await renderTemplateFile(file, bundles, failures, {
      plainHttp: o.plainHttp ?? false,
      ...(o.registry === undefined ? {} : { registry: o.registry }),
    });
    if (o.releases !== undefined) {
      disagreements.push(...releaseDisagreements({ file, catalog: rendered, schema }, o.releases));
    }
    merged.packages.push(...rendered.packages);
    merged.channels.push(...rendered.channels);
    merged.bundles.push(...rendered.bundles);
    merged.deprecations.push(...rendered.deprecations);
    merged.others.push(...rendered.others);
  }
  const bundleProblems: string[] = [];
  if (o.releases !== undefined) {
    for (const release of o.releases) {
      if (!merged.packages.some((p) => p.name === release.package)) continue;
      const bundle = loaded.get(join(o.bundlesDir, release.package, release.version));
      if (bundle !== undefined) bundleProblems.push(...bundleDisagreements(bundle, release));
    }
  }
  if (disagreements.length + bundleProblems.length > 0) {
    // The header names what disagrees: the templates (as it always said), the current bundles, or both.
    const what = [
      ...(disagreements.length > 0 ? ['the catalog templates'] : []),
      ...(bundleProblems.length > 0 ? ["the operators' current bundles"] : []),
    ].join(' and ');
    throw new ActionError(
      'OPKIT_RELEASE_MISMATCH',
      `${what} disagree with the operators' release identity:\n${[...disagreements, ...bundleProblems].join('\n')}`,
    );
  }
  const problems = validateCatalog(merged).filter((r) => r.level === 'error');
  if (problems.length > 0) {
    throw new ActionError(
      'OPKIT_CATALOG_INVALID',
      `the rendered catalog is invalid: ${formatValidationResults(problems).trim()}`,
    );
  }
  await writeCatalog(o.outDir, merged, {
    output: {
      ...o.output,
      inputs: [
        ...o.templates.map((path) => ({ name: '--template', path })),
        { name: '--bundles', path: o.bundlesDir },
        ...(o.output?.inputs ?? []),
      ],
    },
  });
  return { catalog: merged, summary: catalogBuildResult(o.outDir, merged) };
}

/** What `opkit catalog build -o json|yaml` prints: the directory written and the names it holds. */
export interface CatalogBuildResult {
  readonly out: string;
  readonly packages: readonly string[];
  readonly channels: ReadonlyArray<{ readonly package: string; readonly name: string }>;
  /** Each bundle with its image when it is named by one (`--bundle-images`). */
  readonly bundles: ReadonlyArray<{
    readonly package: string;
    readonly name: string;
    readonly image?: string;
  }>;
}

/** The result of building `catalog` into `out`, in the catalog's order. */
export function catalogBuildResult(out: string, catalog: Catalog): CatalogBuildResult {
  return {
    out,
    packages: catalog.packages.map((p) => p.name),
    channels: catalog.channels.map((c) => ({ package: c.package, name: c.name })),
    bundles: catalog.bundles.map((b) => ({
      package: b.package,
      name: b.name,
      ...(b.image === '' ? {} : { image: b.image }),
    })),
  };
}
