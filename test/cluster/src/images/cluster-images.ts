import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type ProgressEvent,
  REF_NAME_ANNOTATION,
  RegistryClient,
  readLayout,
  readLayoutIndex,
  writeLayout,
} from '@opkit/oci';
import { ClusterError } from '../errors.js';
import { cacheRoot, withFileLock } from '../toolchain/cache.js';
import { definitionKey, fileIdentity } from './definition-key.js';
import {
  clusterImageDefinitions,
  type ImageDefinition,
  type OlmImageInputs,
  type PrometheusImageInputs,
} from './definitions.js';
import { ImageBuildError } from './errors.js';
import { candidateVersions, hostAptSources, hostDebianSuite } from './host-apt.js';
import { buildDefinitionImage } from './image-build.js';
import { localMirrorReference } from './mirror.js';
import { findNodeBinary } from './node-binary.js';

/** An image in the cache, ready to push. */
export interface BuiltImage {
  /** The definition's name, e.g. `memcached`. */
  readonly name: string;
  /** Full references (`docker.io/library/memcached:1.6`), one per repository and tag. */
  readonly references: readonly string[];
  /** The OCI image layout holding the image, each reference as an `org.opencontainers.image.ref.name`. */
  readonly layout: string;
  /** Manifest digest. */
  readonly digest: string;
  /** Seconds spent building; 0 when the cache already had it. */
  readonly buildSeconds: number;
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
  /** The images to make; default {@link clusterImageDefinitions} for these inputs and the repository's Node. */
  readonly definitions?: readonly ImageDefinition[];
}

/** Directory of the image cache: `<cacheRoot>/images`. */
export function imageCacheDir(): string {
  return join(cacheRoot(), 'images');
}

/**
 * Makes sure every cluster image is built and cached, building the missing ones one after another (each
 * mmdebstrap run is network- and CPU-bound; running them side by side gains little on two cores).
 *
 * An image is cached as an OCI image layout under `<cacheRoot>/images/<name>-<key>/`, where the key hashes the
 * definition and the versions the host's apt would install for its packages (see {@link definitionKey}), so a
 * point release or security update of those packages rebuilds it once `apt-get update` has seen it. A cached image costs a `stat` and reading its `index.json`. Builds
 * run under a per-image file lock in a scratch directory and the layout is renamed into place only when
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
      node: await findNodeBinary(progress),
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
    const fileIdentities: Record<string, string> = {};
    for (const file of definition.files ?? []) {
      fileIdentities[file.path] = await fileIdentity(file).catch((err: unknown) => {
        throw new ImageBuildError(`image ${definition.name} needs ${file.source}: ${message(err)}`, {
          cause: err,
        });
      });
    }
    const key = definitionKey(definition, { suite, packageVersions, fileIdentities });
    images.push(await ensureImage(definition, key, suite, progress));
  }
  return images;
}

async function ensureImage(
  definition: ImageDefinition,
  key: string,
  suite: string,
  progress: (line: string) => void,
): Promise<BuiltImage> {
  const id = `${definition.name}-${key}`;
  const layout = join(imageCacheDir(), id);
  const cached = await readCachedImage(definition.name, layout);
  if (cached !== undefined) return cached;
  return withFileLock(join(cacheRoot(), 'locks', `image-${id}`), async () => {
    const again = await readCachedImage(definition.name, layout);
    if (again !== undefined) return again;
    const started = Date.now();
    const workDir = join(cacheRoot(), 'build', `image-${id}`);
    await rm(workDir, { recursive: true, force: true });
    progress(`building image ${definition.name} (${definition.repositories.join(', ')})`);
    try {
      const built = await buildDefinitionImage(definition, {
        suite,
        sources: hostAptSources(),
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
        `built image ${definition.name} ${built.version} in ${buildSeconds}s (${(size / 1024 / 1024).toFixed(1)} MiB compressed)`,
      );
      return {
        name: definition.name,
        references: built.references,
        layout,
        digest: built.image.digest,
        buildSeconds,
      };
    } catch (err) {
      if (err instanceof ClusterError) throw err;
      throw new ImageBuildError(`building image ${definition.name} failed: ${message(err)}`, { cause: err });
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });
}

/** The image cached at `layout`, or `undefined` when there is none (yet). */
async function readCachedImage(name: string, layout: string): Promise<BuiltImage | undefined> {
  if (!existsSync(join(layout, 'index.json'))) return undefined;
  const index = await readLayoutIndex(layout);
  const references = index.manifests.flatMap((m) => {
    const ref = m.annotations?.[REF_NAME_ANNOTATION];
    return ref === undefined ? [] : [ref];
  });
  const digest = index.manifests[0]?.digest;
  if (digest === undefined || references.length === 0) return undefined;
  return { name, references, layout, digest, buildSeconds: 0 };
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
      const image = await readLayout(built.layout).catch((err: unknown) => {
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
