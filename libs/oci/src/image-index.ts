import { sha256Digest } from './digest.js';
import { DigestMismatchError, InputInvalidError, ManifestInvalidError } from './errors.js';
import {
  assembleImage,
  type Descriptor,
  type ImageIndex,
  isIndexMediaType,
  isManifestMediaType,
  MediaType,
  type OciImage,
  type Platform,
  parseImageConfig,
  parseIndex,
  parseManifest,
} from './image.js';
import { isRunnablePlatform } from './runnable-platform.js';

/** One image of a multi-platform image, with the platform its index names. */
export interface PlatformImage {
  readonly platform: Platform;
  readonly image: OciImage;
}

/**
 * A multi-platform image held in memory: an image index (OCI) or manifest list (Docker) with its exact bytes,
 * and the images it lists.
 *
 * `images` holds every image of `index.manifests` when the index was built here. When it was read with a
 * platform filter (see {@link ReadIndexOptions}), only the accepted platforms are held; such an index can be
 * the base of a new one ({@link buildImageIndex}, `appendLayers`) but cannot be written or pushed as it is.
 */
export interface OciImageIndex {
  /** Media type of the index. */
  readonly mediaType: string;
  /** Digest of `indexBytes`: the multi-platform image's identity. */
  readonly digest: string;
  readonly index: ImageIndex;
  readonly indexBytes: Uint8Array;
  /** The images, in index order. */
  readonly images: readonly PlatformImage[];
}

/** Options of the readers of image indexes (layouts and registries). */
export interface ReadIndexOptions {
  /**
   * Which platforms of an index to read; the others are not fetched. Entries without a `platform` in the
   * index are fetched and judged by their config. Default: every platform.
   */
  readonly platforms?: (platform: Platform) => boolean;
}

/** Options of {@link buildImageIndex}. */
export interface ImageIndexOptions {
  /** Index annotations; written with keys sorted. */
  readonly annotations?: Readonly<Record<string, string>>;
}

/** Whether `content` is a multi-platform image rather than a single image. */
export function isImageIndex(content: OciImage | OciImageIndex): content is OciImageIndex {
  return 'indexBytes' in content;
}

/** The platform an image config declares (`os`, `architecture`, and `variant` when set). */
export function imagePlatform(image: Pick<OciImage, 'config'>): Platform {
  const { os, architecture, variant } = image.config;
  return { architecture, os, ...(variant === undefined || variant === '' ? {} : { variant }) };
}

/** `os/architecture[/variant]`, e.g. `linux/arm64/v8`. */
export function formatPlatform(platform: Platform): string {
  const variant = platform.variant === undefined || platform.variant === '' ? '' : `/${platform.variant}`;
  return `${platform.os}/${platform.architecture}${variant}`;
}

/**
 * Parses `os/architecture[/variant]` in lower case, as image indexes and node labels spell them: `Linux/AMD64`
 * would name a platform no image or node has.
 *
 * @throws InputInvalidError for anything else.
 */
export function parsePlatform(text: string): Platform {
  const parts = text.trim().split('/');
  if (parts.length < 2 || parts.length > 3 || parts.some((p) => !/^[a-z0-9_.-]+$/.test(p))) {
    throw new InputInvalidError(
      `platform ${JSON.stringify(text)} is not os/architecture[/variant] in lower case, e.g. linux/arm64`,
    );
  }
  const [os, architecture, variant] = parts as [string, string, string | undefined];
  return { architecture, os, ...(variant === undefined ? {} : { variant }) };
}

/**
 * Builds an OCI image index listing `images`, each with the platform of its config. The images keep their
 * order; JSON is serialized compactly with a fixed key order, so equal images give an equal index digest.
 *
 * @throws InputInvalidError when `images` is empty or two images declare the same platform.
 */
export function buildImageIndex(images: readonly OciImage[], options: ImageIndexOptions = {}): OciImageIndex {
  const entries: PlatformImage[] = images.map((image) => ({ platform: imagePlatform(image), image }));
  const built = platformIndex(
    entries.map(({ platform, image }) => ({
      platform,
      mediaType: image.mediaType,
      digest: image.digest,
      size: image.manifestBytes.byteLength,
    })),
    options,
  );
  return { mediaType: MediaType.ociIndex, ...built, images: entries };
}

/**
 * The OCI image index listing `manifests` (each image manifest's descriptor and its config's platform), as
 * {@link buildImageIndex} writes it; for images not held in memory.
 *
 * @throws InputInvalidError when `manifests` is empty or two declare the same platform.
 */
export function platformIndex(
  manifests: ReadonlyArray<
    Pick<Descriptor, 'mediaType' | 'digest' | 'size'> & { readonly platform: Platform }
  >,
  options: ImageIndexOptions = {},
): { readonly digest: string; readonly index: ImageIndex; readonly indexBytes: Uint8Array } {
  if (manifests.length === 0) throw new InputInvalidError('an image index needs at least one image');
  const seen = new Set<string>();
  for (const { platform } of manifests) {
    const key = formatPlatform(platform);
    if (seen.has(key)) throw new InputInvalidError(`two images of the index are for ${key}`);
    seen.add(key);
  }
  const index: ImageIndex = {
    schemaVersion: 2,
    mediaType: MediaType.ociIndex,
    manifests: manifests.map(({ platform, mediaType, digest, size }) => ({
      mediaType,
      digest,
      size,
      platform: {
        architecture: platform.architecture,
        os: platform.os,
        ...(platform.variant === undefined ? {} : { variant: platform.variant }),
      },
    })),
    ...(options.annotations === undefined ? {} : { annotations: sortedRecord(options.annotations) }),
  };
  const indexBytes = Buffer.from(JSON.stringify(index), 'utf8');
  return { digest: sha256Digest(indexBytes), index, indexBytes };
}

/**
 * Builds an {@link OciImageIndex} from index bytes: fetches the manifest of every listed image the platform
 * filter accepts (and its blobs), verifying each against its digest. Entries that are neither image manifests
 * nor indexes (signatures, other artifacts) are skipped; an index nested in the index is refused.
 *
 * @throws ManifestInvalidError or DigestMismatchError naming `where`.
 */
export async function assembleImageIndex(
  indexBytes: Uint8Array,
  where: string,
  fetch: {
    /** The bytes of the manifest `descriptor` names. */
    readonly manifest: (descriptor: Descriptor) => Promise<Uint8Array>;
    /** The bytes of the config or layer blob `descriptor` names. */
    readonly blob: (descriptor: Descriptor) => Promise<Uint8Array>;
  },
  mediaType?: string,
  options: ReadIndexOptions = {},
): Promise<OciImageIndex> {
  const index = parseIndex(indexBytes, where, mediaType);
  const images: PlatformImage[] = [];
  for (const descriptor of index.manifests) {
    if (isIndexMediaType(descriptor.mediaType)) {
      throw new ManifestInvalidError(where, `nested image index ${descriptor.digest} is not supported`);
    }
    if (!isManifestMediaType(descriptor.mediaType)) continue;
    if (descriptor.platform !== undefined && options.platforms?.(descriptor.platform) === false) continue;
    const manifestBytes = await fetch.manifest(descriptor);
    const actual = sha256Digest(manifestBytes);
    if (actual !== descriptor.digest) {
      throw new DigestMismatchError(`${where} manifest`, descriptor.digest, actual);
    }
    const image = await assembleImage(
      manifestBytes,
      `${where}@${descriptor.digest}`,
      fetch.blob,
      descriptor.mediaType,
    );
    const platform = descriptor.platform ?? imagePlatform(image);
    if (descriptor.platform === undefined && options.platforms?.(platform) === false) continue;
    images.push({ platform, image });
  }
  return {
    mediaType: index.mediaType ?? mediaType ?? MediaType.ociIndex,
    digest: sha256Digest(indexBytes),
    index,
    indexBytes,
    images,
  };
}

/**
 * Checks that `content` holds every image its index lists, so it can be written or pushed.
 *
 * @throws InputInvalidError naming the first missing manifest.
 */
export function assertCompleteIndex(content: OciImageIndex): void {
  const held = new Set(content.images.map((entry) => entry.image.digest));
  for (const descriptor of content.index.manifests) {
    if (!held.has(descriptor.digest)) {
      throw new InputInvalidError(
        `image index ${content.digest} lists ${descriptor.digest} but does not hold it (read with a platform filter?)`,
      );
    }
  }
}

function sortedRecord(record: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(record).sort()) out[key] = record[key]!;
  return out;
}

/** The platforms an image provides, as {@link imagePlatforms} reads them. */
export interface ImagePlatforms {
  /** Digest of the manifest or index the reference names. */
  readonly digest: string;
  /** Whether the reference names an image index (manifest list) rather than a single image. */
  readonly index: boolean;
  /** In index order; of a single image, the one its config declares. */
  readonly platforms: readonly Platform[];
}

/** Where {@link imagePlatforms} reads the few documents it needs; each reader bounds what it reads. */
export interface PlatformDocuments {
  /** The verified bytes of the manifest `descriptor` names (an index entry without a platform). */
  readonly manifest: (descriptor: Descriptor) => Promise<Uint8Array>;
  /** The verified bytes of the config blob `descriptor` names. */
  readonly config: (descriptor: Descriptor) => Promise<Uint8Array>;
}

/**
 * The platforms of the image whose top manifest is `bytes`: of an index, the platform of every image it lists
 * (an entry without one is judged by its config); of a single image, its config's. No layer is read.
 * Attestations and other entries for the platform `unknown` (as BuildKit lists them), artifacts that are no
 * image, and entries with an empty os or architecture are not platforms the image runs on and are left out.
 *
 * @throws ManifestInvalidError naming `where` for content that is not an image or index.
 */
export async function imagePlatforms(
  bytes: Uint8Array,
  mediaType: string,
  where: string,
  read: PlatformDocuments,
): Promise<ImagePlatforms> {
  const digest = sha256Digest(bytes);
  const configPlatform = async (manifestBytes: Uint8Array, at: string, type?: string): Promise<Platform> => {
    const manifest = parseManifest(manifestBytes, at, type);
    return imagePlatform({ config: parseImageConfig(await read.config(manifest.config), `${at} config`) });
  };
  if (!isIndexMediaType(mediaType)) {
    return { digest, index: false, platforms: [await configPlatform(bytes, where, mediaType)] };
  }
  const index = parseIndex(bytes, where, mediaType);
  const platforms: Platform[] = [];
  for (const descriptor of index.manifests) {
    if (!isManifestMediaType(descriptor.mediaType)) continue;
    const platform =
      descriptor.platform ??
      (await configPlatform(
        await read.manifest(descriptor),
        `${where}@${descriptor.digest}`,
        descriptor.mediaType,
      ));
    if (isRunnablePlatform(platform)) platforms.push(platform);
  }
  return { digest, index: true, platforms };
}
