import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  buildImageIndex,
  type ProgressEvent,
  REF_NAME_ANNOTATION,
  RegistryClient,
  readLayout,
  readLayoutEntry,
  readLayoutIndex,
  writeLayout,
} from '@opkit/oci';
import { ClusterError } from '../errors.js';
import { cacheRoot, withFileLock } from '../toolchain/cache.js';
import { definitionKey, fileIdentity } from './definition-key.js';
import {
  clusterImageDefinitions,
  definitionArchitectures,
  definitionForArchitecture,
  type ImageDefinition,
  type OlmImageInputs,
  type PrometheusImageInputs,
} from './definitions.js';
import { ImageBuildError } from './errors.js';
import { candidateVersions, hostAptSources, hostDebianSuite } from './host-apt.js';
import { buildDefinitionImage } from './image-build.js';
import { localMirrorReference } from './mirror.js';
import { findNodeBinaries } from './node-package.js';
import { IMAGE_ARCHITECTURES, type ImageArchitecture } from './platforms.js';

/** An image in the cache, ready to push. */
export interface BuiltImage {
  /** The definition's name, e.g. `memcached`. */
  readonly name: string;
  /** Full references (`docker.io/library/memcached:1.6`), one per repository and tag. */
  readonly references: readonly string[];
  /** The OCI image layout holding the image, each reference as an `org.opencontainers.image.ref.name`. */
  readonly layout: string;
  /** Manifest digest, or the index's for a multi-platform image. */
  readonly digest: string;
  /**
   * Each platform's image (all `linux/…`), cached as a single-platform layout under the same references: the
   * image itself, or the images its index lists.
   */
  readonly platforms: readonly PlatformImage[];
  /** Seconds spent building (the platforms side by side); 0 when the cache already had it. */
  readonly buildSeconds: number;
}

/** One platform's image of a {@link BuiltImage}. */
export interface PlatformImage {
  readonly architecture: ImageArchitecture;
  /** OCI image layout holding this platform's image alone. */
  readonly layout: string;
  /** Manifest digest. */
  readonly digest: string;
}

/** Options of {@link ensureClusterImages}. */
export interface EnsureImagesOptions {
  /** A static `pause` executable for the sandbox image. */
  readonly pauseBinary: string;
  /** With OLM: the programs of its `opm` and `util` images, which are then built too. */
  readonly olm?: OlmImageInputs;
  /** With Prometheus: the programs of the Prometheus Operator's, its config-reloader's and Prometheus' images. */
  readonly prometheus?: PrometheusImageInputs;
  /** One line per build step. */
  readonly onProgress?: (line: string) => void;
  /**
   * The images to make; default {@link clusterImageDefinitions} for these inputs, the repository's Node.js and
   * that version's of npm's platform packages for the other platforms of {@link IMAGE_ARCHITECTURES}.
   */
  readonly definitions?: readonly ImageDefinition[];
}

/** Directory of the image cache: `<cacheRoot>/images`. */
export function imageCacheDir(): string {
  return join(cacheRoot(), 'images');
}

/**
 * Makes sure every cluster image is built and cached, building the missing ones one after another (each
 * mmdebstrap run is network- and CPU-bound; running them side by side gains little on two cores); the platforms
 * of a multi-platform image are built side by side, as a foreign platform's build is mostly downloads.
 *
 * Each platform's image is cached as an OCI image layout under `<cacheRoot>/images/<name>-<key>/`, where the
 * key hashes the definition narrowed to that platform and the versions the host's apt would install for its
 * packages (see {@link definitionKey}; a foreign architecture's packages come from the same source versions),
 * so a point release or security update of those packages rebuilds it once `apt-get update` has seen it. A
 * multi-platform image is then one OCI image index over its platforms' images, cached under
 * `<name>-index-<key>/` with a key over theirs. A cached image costs a `stat` and reading its `index.json`.
 * Builds run under a per-image file lock in a scratch directory and the layout is renamed into place only when
 * complete, so concurrent runs and interrupted builds never see half an image.
 *
 * @throws ImageToolMissingError / ImageBuildError naming the image that failed.
 */
export async function ensureClusterImages(options: EnsureImagesOptions): Promise<BuiltImage[]> {
  const progress = options.onProgress ?? (() => {});
  const definitions =
    options.definitions ??
    clusterImageDefinitions({
      pauseBinary: options.pauseBinary,
      nodes: await findNodeBinaries(IMAGE_ARCHITECTURES, progress),
      ...(options.olm === undefined ? {} : { olm: options.olm }),
      ...(options.prometheus === undefined ? {} : { prometheus: options.prometheus }),
    });
  const needsDebian = definitions.some((d) => d.packages.length > 0);
  const suite = needsDebian ? hostDebianSuite() : 'none';
  const packageVersions = needsDebian
    ? await candidateVersions(
        definitions.flatMap((d) => d.packages),
        join(imageCacheDir(), 'apt-candidates.json'),
      )
    : {};
  const images: BuiltImage[] = [];
  for (const definition of definitions) {
    const platforms = await Promise.all(
      definitionArchitectures(definition).map(async (architecture) => {
        const platform = definitionForArchitecture(definition, architecture);
        const fileIdentities: Record<string, string> = {};
        for (const file of platform.files ?? []) {
          fileIdentities[file.path] = await fileIdentity(file).catch((err: unknown) => {
            throw new ImageBuildError(`image ${definition.name} needs ${file.source}: ${message(err)}`, {
              cause: err,
            });
          });
        }
        const key = definitionKey(platform, { suite, packageVersions, fileIdentities });
        return ensureImage(platform, architecture, key, suite, progress);
      }),
    );
    const [only] = platforms;
    images.push(
      platforms.length === 1 && only !== undefined
        ? only
        : await ensureImageIndex(definition.name, platforms),
    );
  }
  return images;
}

async function ensureImage(
  definition: ImageDefinition,
  architecture: ImageArchitecture,
  key: string,
  suite: string,
  progress: (line: string) => void,
): Promise<BuiltImage> {
  const id = `${definition.name}-${key}`;
  const layout = join(imageCacheDir(), id);
  const label = `${definition.name} (linux/${architecture})`;
  const cached = await readCachedImage(definition.name, layout, architecture);
  if (cached !== undefined) return cached;
  return withFileLock(join(cacheRoot(), 'locks', `image-${id}`), async () => {
    const again = await readCachedImage(definition.name, layout, architecture);
    if (again !== undefined) return again;
    const started = Date.now();
    const workDir = join(cacheRoot(), 'build', `image-${id}`);
    await rm(workDir, { recursive: true, force: true });
    progress(`building image ${label} (${definition.repositories.join(', ')})`);
    try {
      const built = await buildDefinitionImage(definition, {
        suite,
        sources: hostAptSources(),
        architecture,
        workDir,
        onProgress: progress,
      });
      // writeLayout assembles the layout next to its target and renames it into place.
      await writeLayout(
        layout,
        built.references.map((reference) => ({ image: built.image, tag: reference })),
      );
      const buildSeconds = Math.round((Date.now() - started) / 1000);
      const size = built.image.layers.reduce((sum, l) => sum + l.descriptor.size, 0);
      progress(
        `built image ${label} ${built.version} in ${buildSeconds}s (${(size / 1024 / 1024).toFixed(1)} MiB compressed)`,
      );
      return {
        name: definition.name,
        references: built.references,
        layout,
        digest: built.image.digest,
        platforms: [{ architecture, layout, digest: built.image.digest }],
        buildSeconds,
      };
    } catch (err) {
      if (err instanceof ClusterError) throw err;
      throw new ImageBuildError(`building image ${label} failed: ${message(err)}`, { cause: err });
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });
}

/**
 * The OCI image index over `platforms` (each a cached single-platform image), cached as a layout of its own
 * under every reference of the platforms' images. Equal platform images give an equal index digest.
 */
async function ensureImageIndex(name: string, platforms: readonly BuiltImage[]): Promise<BuiltImage> {
  const images = platforms.flatMap((p) => p.platforms);
  const key = createHash('sha256')
    .update(platforms.map((p) => p.digest).join('\n'))
    .digest('hex')
    .slice(0, 16);
  const layout = join(imageCacheDir(), `${name}-index-${key}`);
  const buildSeconds = Math.max(...platforms.map((p) => p.buildSeconds));
  const references = platforms[0]?.references ?? [];
  for (const platform of platforms) {
    if (platform.references.join(' ') !== references.join(' ')) {
      throw new ImageBuildError(
        `the platforms of image ${name} disagree on its tags: ${references.join(', ')} and ${platform.references.join(', ')}`,
      );
    }
  }
  const cached = await readCachedImage(name, layout, images);
  if (cached !== undefined) return { ...cached, buildSeconds };
  const index = buildImageIndex(await Promise.all(platforms.map((p) => readLayout(p.layout, references[0]))));
  await withFileLock(join(cacheRoot(), 'locks', `image-${name}-index-${key}`), async () => {
    if (existsSync(join(layout, 'index.json'))) return;
    await writeLayout(
      layout,
      references.map((reference) => ({ image: index, tag: reference })),
    );
  });
  return { name, references, layout, digest: index.digest, platforms: images, buildSeconds };
}

/**
 * The image cached at `layout`, or `undefined` when there is none (yet): one platform's (`platforms` its
 * architecture) or an index over `platforms`.
 */
async function readCachedImage(
  name: string,
  layout: string,
  platforms: ImageArchitecture | readonly PlatformImage[],
): Promise<BuiltImage | undefined> {
  if (!existsSync(join(layout, 'index.json'))) return undefined;
  const index = await readLayoutIndex(layout);
  const references = index.manifests.flatMap((m) => {
    const ref = m.annotations?.[REF_NAME_ANNOTATION];
    return ref === undefined ? [] : [ref];
  });
  const digest = index.manifests[0]?.digest;
  if (digest === undefined || references.length === 0) return undefined;
  const images = typeof platforms === 'string' ? [{ architecture: platforms, layout, digest }] : platforms;
  return { name, references, layout, digest, platforms: images, buildSeconds: 0 };
}

/**
 * Pushes every image under every one of its references into the local registry at `registryHost` (plain
 * HTTP on loopback). Blobs the registry already has are not uploaded again, so pushing an unchanged set is a
 * few `HEAD`s and manifest `PUT`s.
 *
 * @throws ImageBuildError naming the image when a layout cannot be read or a push fails.
 */
export async function pushClusterImages(
  images: readonly BuiltImage[],
  registryHost: string,
  onProgress: (line: string) => void = () => {},
): Promise<void> {
  const client = new RegistryClient({ plainHttp: [registryHost] });
  try {
    for (const built of images) {
      const image = await readLayoutEntry(built.layout, built.references[0]).catch((err: unknown) => {
        throw new ImageBuildError(`cannot read the ${built.name} image at ${built.layout}: ${message(err)}`, {
          cause: err,
        });
      });
      for (const reference of built.references) {
        const target = localMirrorReference(reference, registryHost);
        const uploads = new Map<string, number>();
        const onBlob = (event: ProgressEvent): void => {
          if (event.phase === 'upload') uploads.set(event.digest, event.total);
        };
        try {
          await client.push(image, target, { onProgress: onBlob });
        } catch (err) {
          throw new ImageBuildError(`pushing ${reference} to ${target} failed: ${message(err)}`, {
            cause: err,
          });
        }
        const uploaded = [...uploads.values()].reduce((sum, size) => sum + size, 0);
        const detail = uploaded > 0 ? ` (${(uploaded / 1024 / 1024).toFixed(1)} MiB uploaded)` : '';
        onProgress(`pushed ${reference} as ${target}${detail}`);
      }
    }
  } finally {
    client.close();
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
