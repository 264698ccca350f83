import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  bundleImage,
  namesRegistryHost,
  type OutputGuard,
  type RegistryClient,
  splitTrailingTag,
} from '@opkit/oci';
import {
  type BundleBlob,
  type Catalog,
  emptyCatalog,
  formatValidationResults,
  readBundleAnnotations,
  readTemplate,
  renderBundle,
  renderTemplate,
  TemplateError,
  toCatalogBundle,
  validateCatalog,
  writeCatalog,
} from '@opkit/olm';
import { CliError } from './cli-error.js';
import type { OperatorRelease } from './operator-release.js';
import { releaseDisagreements } from './release-identity.js';

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
 * (`bundles/<package>/<version>`, relative to the working directory).
 */
export async function renderBundles(
  bundlesDir: string,
  images?: BundleImages,
): Promise<Map<string, BundleBlob>> {
  const rendered = new Map<string, BundleBlob>();
  for (const pkg of readdirSync(bundlesDir).filter((p) => statSync(join(bundlesDir, p)).isDirectory())) {
    for (const version of readdirSync(join(bundlesDir, pkg))) {
      const dir = join(bundlesDir, pkg, version);
      if (!statSync(dir).isDirectory()) continue;
      const image = images ? await pushedBundleImage(dir, pkg, version, images) : undefined;
      const blob = toCatalogBundle(renderBundle(dir, image ? { image } : {}), { file: dir, index: 0 });
      rendered.set(join(bundlesDir, pkg, version), blob);
    }
  }
  return rendered;
}

/** The digest reference of a bundle's pushed image, refused when the registry holds other content. */
async function pushedBundleImage(
  dir: string,
  pkg: string,
  version: string,
  images: BundleImages,
): Promise<string> {
  const repository = `${images.repository.replace(/\/+$/, '')}/${pkg}-bundle`;
  const reference = `${repository}:v${version}`;
  const local = await bundleImage(dir, readBundleAnnotations(dir));
  let remote: string;
  try {
    remote = (await images.client.resolve(reference)).digest;
  } catch (error) {
    throw new CliError(
      'OPKIT_BUNDLE_IMAGE_MISSING',
      `${reference}: ${(error as Error).message} (push the bundle images first: nx run bundle:push)`,
    );
  }
  if (remote !== local.digest) {
    throw new CliError(
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
 * Renders one template, read once. The bundles it names are the rendered bundle directories, or else bundle
 * images (a registry reference or an OCI layout), pulled and rendered as opm renders them — a substitutes
 * template's substitutes are images, for one.
 */
async function renderTemplateFile(
  file: string,
  bundles: Map<string, BundleBlob>,
  options: { plainHttp: boolean },
): Promise<{ catalog: Catalog; schema: string }> {
  const { document, schema } = readTemplate(readFileSync(file), { file });
  for (;;) {
    try {
      return { catalog: renderTemplate(document, bundles, { file }), schema };
    } catch (error) {
      const reference = error instanceof TemplateError ? error.reference : undefined;
      if (reference === undefined || bundles.has(reference) || !namesAnImage(reference)) throw error;
      const { renderBundleImage } = await import('./render.js');
      const bundle = await renderBundleImage(reference, options).catch((pull: unknown) => {
        throw new CliError(
          'OPKIT_TEMPLATE_BUNDLE',
          `${(error as Error).message}: ${(pull as Error).message}`,
        );
      });
      bundles.set(reference, bundle);
    }
  }
}

/** Options of {@link buildCatalog}. */
export interface BuildCatalogOptions {
  readonly plainHttp?: boolean;
  /**
   * The operators' release identity (`opkit` in their package.json): the build fails, naming the template
   * and the field, where a template disagrees with it.
   */
  readonly releases?: readonly OperatorRelease[];
  /**
   * The output-directory rule's view of `outDir`: the flag naming it, `force`, and inputs besides the
   * templates and the bundles, which are always inputs.
   */
  readonly output?: OutputGuard;
}

/**
 * Builds a file-based catalog from templates (one per package) and the rendered bundles, and writes the
 * directories of the packages rendered into `outDir` (other packages' directories there stay as they are).
 */
export async function buildCatalog(
  templates: readonly string[],
  bundlesDir: string,
  outDir: string,
  images?: BundleImages,
  options: BuildCatalogOptions = {},
): Promise<Catalog> {
  const bundles = await renderBundles(bundlesDir, images);
  const merged = emptyCatalog();
  const disagreements: string[] = [];
  for (const file of templates) {
    const { catalog: rendered, schema } = await renderTemplateFile(file, bundles, {
      plainHttp: options.plainHttp ?? false,
    });
    if (options.releases !== undefined) {
      disagreements.push(...releaseDisagreements({ file, catalog: rendered, schema }, options.releases));
    }
    merged.packages.push(...rendered.packages);
    merged.channels.push(...rendered.channels);
    merged.bundles.push(...rendered.bundles);
    merged.deprecations.push(...rendered.deprecations);
    merged.others.push(...rendered.others);
  }
  if (disagreements.length > 0) {
    throw new CliError(
      'OPKIT_RELEASE_MISMATCH',
      `the catalog templates disagree with the operators' release identity:\n${disagreements.join('\n')}`,
    );
  }
  const problems = validateCatalog(merged).filter((r) => r.level === 'error');
  if (problems.length > 0) {
    throw new CliError(
      'OPKIT_CATALOG_INVALID',
      `the rendered catalog is invalid: ${formatValidationResults(problems).trim()}`,
    );
  }
  await writeCatalog(outDir, merged, {
    output: {
      ...options.output,
      inputs: [
        ...templates.map((path) => ({ name: '--template', path })),
        { name: '--bundles', path: bundlesDir },
        ...(options.output?.inputs ?? []),
      ],
    },
  });
  return merged;
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
