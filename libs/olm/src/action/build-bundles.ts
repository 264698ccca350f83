import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { bundleImage, bundleImageFromFiles, type RegistryClient, readLayout, writeLayout } from '@opkit/oci';
import { readBundleAnnotations } from '../bundle/load.js';
import type { WrittenBundle } from '../bundle/write.js';
import { formatText } from '../validation/output.js';
import { validateBundleDir } from '../validation/validate-bundle-dir.js';
import { ActionError } from './errors.js';
import { type BundlePlatforms, generateBundle } from './generate-bundle.js';
import { type OperatorRelease, readOperatorReleases } from './operator-release.js';
import type { Progress } from './progress.js';
import { releasePlatforms } from './release-platforms.js';

export interface BuildBundlesOptions {
  readonly operatorsDir: string;
  readonly bundlesDir: string;
  /** Where the OCI image layouts go (a build output). */
  readonly imagesDir: string;
  /** Pin the generated bundles' images to the digests this client resolves (`--use-image-digests`). */
  readonly imageDigests?: RegistryClient;
  /** The platforms the generated bundles' CSVs state (see `GenerateBundleOptions.platforms`); unset: the base's. */
  readonly platforms?: BundlePlatforms;
  /** One line per bundle generated, and per bundle validated and imaged. */
  readonly onProgress?: Progress;
}

/** A bundle {@link buildBundles} validated and imaged. */
export interface BuiltBundleImage {
  /** The bundle directory, relative to the working directory. */
  readonly dir: string;
  /** The OCI layout its image was written to (tag: the version). */
  readonly layout: string;
  readonly digest: string;
  /** Whether this run generated the bundle (the operator's current version) rather than finding it released. */
  readonly generated: boolean;
}

/**
 * The main job: generate each operator's bundle for its current version from its sources (older released
 * bundles stay as released), validate every bundle as operator-sdk would, and build each bundle's image as
 * an OCI layout. Fails, naming the bundle and the problems, if any bundle does not validate.
 */
export async function buildBundles(o: BuildBundlesOptions): Promise<BuiltBundleImage[]> {
  const log = o.onProgress ?? (() => {});
  const built: BuiltBundleImage[] = [];
  // The bundles generated here, as written: imaged and labelled from memory, not read back.
  const generated = new Map<string, WrittenBundle>();
  for (const release of readOperatorReleases(o.operatorsDir)) {
    const out = join(o.bundlesDir, release.package, release.version);
    const written = await generateBundle({
      operatorDir: release.operatorDir,
      packageName: release.package,
      version: release.version,
      outDir: out,
      channels: release.channels,
      replaces: release.replaces,
      operatorImage: `${release.image}:${release.version}`,
      ...(o.imageDigests ? { imageDigests: o.imageDigests } : {}),
      ...platformsOf(o, release),
      onProgress: log,
      output: { name: '--bundles', inputs: [{ name: '--operators', path: release.operatorDir }] },
    });
    generated.set(written.dir, written);
    log(`generated ${relative(process.cwd(), out)}`);
  }
  const failed: string[] = [];
  for (const packageName of readdirSync(o.bundlesDir).filter((p) =>
    statSync(join(o.bundlesDir, p)).isDirectory(),
  )) {
    for (const version of readdirSync(join(o.bundlesDir, packageName))) {
      const dir = join(o.bundlesDir, packageName, version);
      const report = validateBundleDir(dir);
      if (!report.passed) {
        failed.push(`${dir}:\n${formatText(report)}`);
        continue;
      }
      const layout = join(o.imagesDir, `${packageName}-bundle`, version);
      // A bundle written by this run is imaged from memory; a released one is read from disk twice more after
      // the validator's read: its annotations (the image's labels), then every file for its image.
      const written = generated.get(resolve(dir));
      const image =
        written !== undefined && holdsOnlyWritten(written)
          ? await bundleImageFromFiles(dir, written.contents, written.annotations)
          : await bundleImage(dir, readBundleAnnotations(dir));
      await writeLayout(layout, [{ image, tag: version }], {
        name: '--images',
        inputs: [{ name: '--bundles', path: dir }],
      });
      built.push({
        dir: relative(process.cwd(), dir),
        layout: relative(process.cwd(), layout),
        digest: image.digest,
        generated: generated.has(resolve(dir)),
      });
      log(
        `validated ${relative(process.cwd(), dir)}; image ${image.digest} in ${relative(process.cwd(), layout)}`,
      );
    }
  }
  if (failed.length > 0)
    throw new ActionError('OPKIT_BUNDLE_INVALID', `bundles failed validation:\n${failed.join('\n')}`);
  return built;
}

/** Options of {@link pushBundleImages}. */
export interface PushBundleImagesOptions {
  /** The OCI layouts {@link buildBundles} wrote. */
  readonly imagesDir: string;
  /** `<registry>/<namespace>` the images are pushed under. */
  readonly repository: string;
  /** The client to push with; the caller closes it. */
  readonly registry: RegistryClient;
  /** One line per image pushed. */
  readonly onProgress?: Progress;
}

/**
 * Whether the image of a bundle just written is the image of what was written: the writer replaces
 * `manifests/` and `metadata/` whole, but of `tests/scorecard/` only its `config.yaml`, so other files there
 * (a user's own) make the directory the image's source.
 */
function holdsOnlyWritten(written: WrittenBundle): boolean {
  const scorecard = join(written.dir, 'tests', 'scorecard');
  if (!existsSync(scorecard)) return true;
  const wrote = written.files.filter((f) => f.startsWith('tests/scorecard/')).map((f) => f.slice(16));
  const found = readdirSync(scorecard);
  return found.length === wrote.length && found.every((name) => wrote.includes(name));
}

/** A bundle image pushed by {@link pushBundleImages}. */
export interface PushedBundleImage {
  readonly reference: string;
  readonly digest: string;
}

/**
 * Pushes the bundle images {@link buildBundles} wrote (`<imagesDir>/<package>-bundle/<version>`) to
 * `<repository>/<package>-bundle:v<version>`, the names `operator-sdk`'s Makefile gives bundle images.
 */
export async function pushBundleImages(o: PushBundleImagesOptions): Promise<PushedBundleImage[]> {
  const pushed: PushedBundleImage[] = [];
  if (!existsSync(o.imagesDir)) return pushed;
  for (const entry of readdirSync(o.imagesDir)
    .filter((e) => e.endsWith('-bundle'))
    .sort()) {
    for (const version of readdirSync(join(o.imagesDir, entry)).sort()) {
      const image = await readLayout(join(o.imagesDir, entry, version));
      const target = `${o.repository.replace(/\/+$/, '')}/${entry}:v${version}`;
      const result = await o.registry.push(image, target);
      o.onProgress?.(`pushed ${result.reference}@${result.digest}`);
      pushed.push({ reference: target, digest: result.digest });
    }
  }
  return pushed;
}

/** The platforms of `release`'s bundle (see {@link releasePlatforms}). */
function platformsOf(o: BuildBundlesOptions, release: OperatorRelease): { platforms?: BundlePlatforms } {
  const platforms = releasePlatforms(o.platforms, { file: release.manifest, platforms: release.platforms });
  return platforms === undefined ? {} : { platforms };
}
