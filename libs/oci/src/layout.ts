import { lstat, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { type BlobRefusals, readVerifiedBlob } from './blob-file.js';
import { digestHex, isDigest } from './digest.js';
import { DigestMismatchError, LayoutInvalidError, OciError } from './errors.js';
import {
  assembleImage,
  type Descriptor,
  type ImageConfig,
  type ImageIndex,
  type ImageManifest,
  isIndexMediaType,
  MediaType,
  type OciImage,
  parseImageConfig,
  parseIndex,
  parseManifest,
} from './image.js';
import {
  assembleImageIndex,
  assertCompleteIndex,
  type ImagePlatforms,
  imagePlatforms,
  isImageIndex,
  type OciImageIndex,
  type ReadIndexOptions,
} from './image-index.js';
import {
  OutputDirectoryError,
  type OutputGuard,
  type OutputKind,
  writeOutputDirectory,
} from './output-directory.js';

/** Annotation holding an image's tag in an OCI layout's `index.json`. */
export const REF_NAME_ANNOTATION = 'org.opencontainers.image.ref.name';

/**
 * One image, or multi-platform image (image index), to write into a layout, optionally tagged (the tag goes
 * into `org.opencontainers.image.ref.name`).
 */
export interface LayoutEntry {
  readonly image: OciImage | OciImageIndex;
  readonly tag?: string;
}

/**
 * Writes an OCI image layout (`oci-layout`, `index.json`, `blobs/sha256/…`) holding `entries` to `dir`. An
 * image index is written as a blob with the blobs of all its images; `index.json` then names the index.
 *
 * `dir` is an output directory (see `output-directory.ts`): absent, empty or an earlier layout, and neither the
 * current directory nor one holding an input of `guard`. The layout is assembled in a sibling temporary
 * directory and renamed into place, so a failure leaves the previous layout as it was; of an earlier layout
 * only `oci-layout`, `index.json` and `blobs/` are replaced, other files in it are left alone.
 *
 * @throws LayoutInvalidError for a duplicate or malformed tag; InputInvalidError for an image index that does
 *   not hold all its images; OutputDirectoryError when `dir` may not be written.
 */
export async function writeLayout(
  dir: string,
  entries: readonly LayoutEntry[],
  guard?: OutputGuard,
): Promise<void> {
  const target = resolve(dir);
  checkLayoutTags(
    target,
    entries.map(({ tag }) => tag),
  );
  for (const { image } of entries) if (isImageIndex(image)) assertCompleteIndex(image);
  try {
    // The path as given: `..` after a symlink is the kernel's to resolve, not `resolve`'s.
    await writeOutputDirectory(
      dir,
      OCI_LAYOUT_OUTPUT,
      { owned: LAYOUT_ENTRIES, stage: (tmp) => stageLayout(tmp, entries) },
      guard,
    );
  } catch (err) {
    if (err instanceof OciError || err instanceof OutputDirectoryError) throw err;
    throw new LayoutInvalidError(target, `cannot write layout: ${errorMessage(err)}`, { cause: err });
  }
}

/**
 * Writes an OCI image layout whose blobs `stage` writes itself (e.g. streamed from a registry) into `blobs`,
 * the `blobs/sha256` directory of the staged layout, each named by its digest's hex; `index.json` then lists
 * the descriptors `stage` returns. `dir` follows the rules of {@link writeLayout}, and a failure of `stage`
 * leaves the previous layout as it was.
 *
 * @throws what `stage` throws; OutputDirectoryError when `dir` may not be written.
 */
export async function writeStagedLayout(
  dir: string,
  stage: (blobs: string) => Promise<readonly Descriptor[]>,
  guard?: OutputGuard,
): Promise<void> {
  const target = resolve(dir);
  try {
    await writeOutputDirectory(
      dir,
      OCI_LAYOUT_OUTPUT,
      {
        owned: LAYOUT_ENTRIES,
        stage: async (tmp) => {
          const blobs = join(tmp, 'blobs', 'sha256');
          await mkdir(blobs, { recursive: true });
          await writeLayoutIndex(tmp, await stage(blobs));
        },
      },
      guard,
    );
  } catch (err) {
    if (err instanceof OciError || err instanceof OutputDirectoryError) throw err;
    throw new LayoutInvalidError(target, `cannot write layout: ${errorMessage(err)}`, { cause: err });
  }
}

/**
 * Refuses a malformed (empty, with white space) or repeated tag of the layout `target`.
 *
 * @throws LayoutInvalidError naming the tag.
 */
export function checkLayoutTags(target: string, tags: ReadonlyArray<string | undefined>): void {
  const seen = new Set<string>();
  for (const tag of tags) {
    if (tag === undefined) continue;
    if (tag === '' || /[\s]/.test(tag))
      throw new LayoutInvalidError(target, `invalid tag ${JSON.stringify(tag)}`);
    if (seen.has(tag)) throw new LayoutInvalidError(target, `duplicate tag ${JSON.stringify(tag)}`);
    seen.add(tag);
  }
}

/** What a layout is made of; `writeLayout` replaces these and leaves anything else in the directory alone. */
const LAYOUT_ENTRIES = ['blobs', 'index.json', 'oci-layout'];

/** An OCI layout, recognised by its `oci-layout` file. */
const OCI_LAYOUT_OUTPUT: OutputKind = {
  what: 'OCI layout',
  mark: 'a layout has an oci-layout file',
  isEarlierOutput: async (dir) =>
    (await stat(join(dir, 'oci-layout')).catch(() => undefined))?.isFile() ?? false,
};

/** Writes the layout's files into the empty directory `tmp`. */
async function stageLayout(tmp: string, entries: readonly LayoutEntry[]): Promise<void> {
  await mkdir(join(tmp, 'blobs', 'sha256'), { recursive: true });
  const written = new Set<string>();
  const putBlob = async (digest: string, bytes: Uint8Array): Promise<void> => {
    if (written.has(digest)) return;
    written.add(digest);
    await writeFile(join(tmp, 'blobs', 'sha256', digestHex(digest)), bytes);
  };
  const putImage = async (image: OciImage): Promise<void> => {
    for (const layer of image.layers) await putBlob(layer.descriptor.digest, layer.bytes);
    await putBlob(image.manifest.config.digest, image.configBytes);
    await putBlob(image.digest, image.manifestBytes);
  };
  const manifests: Descriptor[] = [];
  for (const { image, tag } of entries) {
    let bytes: Uint8Array;
    if (isImageIndex(image)) {
      for (const entry of image.images) await putImage(entry.image);
      await putBlob(image.digest, image.indexBytes);
      bytes = image.indexBytes;
    } else {
      await putImage(image);
      bytes = image.manifestBytes;
    }
    manifests.push({
      mediaType: image.mediaType,
      digest: image.digest,
      size: bytes.byteLength,
      ...(tag === undefined ? {} : { annotations: { [REF_NAME_ANNOTATION]: tag } }),
    });
  }
  await writeLayoutIndex(tmp, manifests);
}

/** Writes `oci-layout` and an `index.json` listing `manifests` into the staged layout `tmp`. */
async function writeLayoutIndex(tmp: string, manifests: readonly Descriptor[]): Promise<void> {
  const index: ImageIndex = { schemaVersion: 2, mediaType: MediaType.ociIndex, manifests };
  await writeFile(join(tmp, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  await writeFile(join(tmp, 'index.json'), JSON.stringify(index));
}

/**
 * Reads the `index.json` of the layout at `dir`.
 *
 * @throws LayoutInvalidError when `oci-layout` or `index.json` is missing or malformed.
 */
export async function readLayoutIndex(dir: string): Promise<ImageIndex> {
  const target = resolve(dir);
  let layoutFile: string;
  try {
    layoutFile = await readFile(join(target, 'oci-layout'), 'utf8');
  } catch (err) {
    throw new LayoutInvalidError(target, `no oci-layout file (${errorMessage(err)})`, { cause: err });
  }
  try {
    const parsed: unknown = JSON.parse(layoutFile);
    if (typeof parsed !== 'object' || parsed === null || !('imageLayoutVersion' in parsed))
      throw new Error('no version');
  } catch (err) {
    throw new LayoutInvalidError(target, 'oci-layout has no imageLayoutVersion', { cause: err });
  }
  let indexBytes: Uint8Array;
  try {
    indexBytes = await readFile(join(target, 'index.json'));
  } catch (err) {
    throw new LayoutInvalidError(target, `no index.json (${errorMessage(err)})`, { cause: err });
  }
  return parseIndex(indexBytes, `${target}/index.json`, MediaType.ociIndex);
}

/**
 * Reads one image from the layout at `dir`. `ref` is a tag (matched against `org.opencontainers.image.ref.name`)
 * or a manifest digest; without it the layout must hold exactly one manifest. Every blob is verified against
 * its digest.
 *
 * @throws LayoutInvalidError when the reference is absent or ambiguous, names an image index (see
 *   {@link readLayoutEntry}), or a blob is missing; ManifestInvalidError / DigestMismatchError for corrupt content.
 */
export async function readLayout(dir: string, ref?: string): Promise<OciImage> {
  const target = resolve(dir);
  const descriptor = await selectImageDescriptor(target, ref);
  const readBlob = blobReader(target);
  const where = `${target}:${ref ?? descriptor.digest}`;
  const manifestBytes = await readBlob(descriptor.digest);
  return assembleImage(manifestBytes, where, (d) => readBlob(d.digest), descriptor.mediaType).then(
    (image) => {
      if (image.digest !== descriptor.digest) {
        throw new LayoutInvalidError(target, `manifest blob ${descriptor.digest} does not match its digest`);
      }
      return image;
    },
  );
}

/** A layer of a {@link LayoutImage}: its descriptor, and its content read from the layout when needed. */
export interface LayoutLayer {
  readonly descriptor: Descriptor;
  /**
   * The layer's bytes as a stream, checked as they pass: it fails at once past the descriptor's size, and at
   * its end when the content is short or hashes to another digest.
   */
  open(): Readable;
}

/** One image of an OCI layout whose layers stay on disk: manifest and config read and verified. */
export interface LayoutImage {
  /** Media type of the manifest. */
  readonly mediaType: string;
  /** Digest of the manifest: the image's identity. */
  readonly digest: string;
  readonly manifest: ImageManifest;
  readonly config: ImageConfig;
  /** In manifest order. */
  readonly layers: readonly LayoutLayer[];
}

/** The most a manifest or config read into memory may hold. */
const MAX_SMALL_BLOB_BYTES = 4 * 1024 * 1024;

/**
 * Opens one image of the layout at `dir` (`ref` as for {@link readLayout}) without reading its layers: the
 * manifest and config are read (each within 4 MiB) and verified against their digests, every layer is checked
 * to be a file of the layout, and its content is verified as it is read (`open`), so memory stays bounded
 * whatever the layers' sizes.
 *
 * @throws LayoutInvalidError when the reference is absent, ambiguous or names an image index, or a blob is
 *   missing or of another size than its descriptor's; ManifestInvalidError / DigestMismatchError for corrupt
 *   content.
 */
export async function openLayoutImage(dir: string, ref?: string): Promise<LayoutImage> {
  const target = resolve(dir);
  const descriptor = await selectImageDescriptor(target, ref);
  const where = `${target}:${ref ?? descriptor.digest}`;
  const blobFile = async (d: Descriptor): Promise<string> => {
    const path = join(target, 'blobs', 'sha256', digestHex(d.digest));
    const stats = await lstat(path).catch(() => undefined);
    if (stats === undefined || !stats.isFile())
      throw new LayoutInvalidError(target, `missing blob ${d.digest}`);
    return path;
  };
  const readSmall = async (d: Descriptor, what: string): Promise<Buffer> => {
    if (d.size > MAX_SMALL_BLOB_BYTES) {
      throw new LayoutInvalidError(
        target,
        `${what} ${d.digest} is larger than ${MAX_SMALL_BLOB_BYTES} bytes`,
      );
    }
    const chunks: Buffer[] = [];
    for await (const chunk of readVerifiedBlob(await blobFile(d), d, layoutRefusals(target, where, d)))
      chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  const manifest = parseManifest(await readSmall(descriptor, 'manifest'), where, descriptor.mediaType);
  const config = parseImageConfig(await readSmall(manifest.config, 'config'), `${where} config`);
  if (config.rootfs.diff_ids.length !== manifest.layers.length) {
    throw new LayoutInvalidError(
      target,
      `${where}: manifest has ${manifest.layers.length} layers but config has ${config.rootfs.diff_ids.length} diff_ids`,
    );
  }
  const layers: LayoutLayer[] = [];
  for (const layer of manifest.layers) {
    const path = await blobFile(layer);
    layers.push({
      descriptor: layer,
      open: () => readVerifiedBlob(path, layer, layoutRefusals(target, where, layer)),
    });
  }
  return {
    mediaType: manifest.mediaType ?? descriptor.mediaType,
    digest: descriptor.digest,
    manifest,
    config,
    layers,
  };
}

/** How a blob of the layout `target` that is not what its descriptor says is refused. */
function layoutRefusals(target: string, where: string, descriptor: Descriptor): BlobRefusals {
  const blob = `blob ${descriptor.digest}`;
  return {
    tooLong: () =>
      new LayoutInvalidError(
        target,
        `${blob} holds more than the ${descriptor.size} bytes its descriptor says`,
      ),
    tooShort: (received) =>
      new LayoutInvalidError(
        target,
        `${blob} holds ${received} bytes, its descriptor says ${descriptor.size}`,
      ),
    mismatch: (actual) => new DigestMismatchError(`${where} blob`, descriptor.digest, actual),
  };
}

/**
 * Reads what a tag or digest of the layout at `dir` names: an image, or an image index with its images (only
 * the platforms `options.platforms` accepts). Without `ref` the layout must hold exactly one entry. Every blob
 * is verified against its digest.
 *
 * @throws LayoutInvalidError when the reference is absent or ambiguous or a blob is missing;
 *   ManifestInvalidError / DigestMismatchError for corrupt content.
 */
export async function readLayoutEntry(
  dir: string,
  ref?: string,
  options: ReadIndexOptions = {},
): Promise<OciImage | OciImageIndex> {
  const target = resolve(dir);
  const descriptor = await selectDescriptor(target, ref);
  if (!isIndexMediaType(descriptor.mediaType)) return readLayout(target, ref ?? descriptor.digest);
  const readBlob = blobReader(target);
  const where = `${target}:${ref ?? descriptor.digest}`;
  const bytes = await readBlob(descriptor.digest);
  const fetchBlob = (d: Descriptor): Promise<Uint8Array> => readBlob(d.digest);
  const content = await assembleImageIndex(
    bytes,
    where,
    { manifest: fetchBlob, blob: fetchBlob },
    descriptor.mediaType,
    options,
  );
  if (content.digest !== descriptor.digest) {
    throw new LayoutInvalidError(target, `index blob ${descriptor.digest} does not match its digest`);
  }
  return content;
}

/**
 * The platforms the image a tag or digest of the layout at `dir` names provides (see `imagePlatforms`;
 * `ref` as for {@link readLayoutEntry}): its index's entries, or a single image's config. Each document read
 * is within 4 MiB and verified against its digest; no layer is read.
 *
 * @throws LayoutInvalidError when the reference is absent or ambiguous or a blob is missing or too large;
 *   ManifestInvalidError / DigestMismatchError for corrupt content.
 */
export async function readLayoutPlatforms(dir: string, ref?: string): Promise<ImagePlatforms> {
  const target = resolve(dir);
  const descriptor = await selectDescriptor(target, ref);
  const where = `${target}:${ref ?? descriptor.digest}`;
  const readSmall = async (d: Descriptor): Promise<Buffer> => {
    if (d.size > MAX_SMALL_BLOB_BYTES) {
      throw new LayoutInvalidError(target, `blob ${d.digest} is larger than ${MAX_SMALL_BLOB_BYTES} bytes`);
    }
    const path = join(target, 'blobs', 'sha256', digestHex(d.digest));
    const stats = await lstat(path).catch(() => undefined);
    if (stats === undefined || !stats.isFile())
      throw new LayoutInvalidError(target, `missing blob ${d.digest}`);
    const chunks: Buffer[] = [];
    for await (const chunk of readVerifiedBlob(path, d, layoutRefusals(target, where, d)))
      chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  return imagePlatforms(await readSmall(descriptor), descriptor.mediaType, where, {
    manifest: readSmall,
    config: readSmall,
  });
}

/** The descriptor of the single image `ref` names, refusing an image index. */
async function selectImageDescriptor(target: string, ref: string | undefined): Promise<Descriptor> {
  const descriptor = await selectDescriptor(target, ref);
  if (isIndexMediaType(descriptor.mediaType)) {
    const label = ref === undefined ? 'the layout' : JSON.stringify(ref);
    throw new LayoutInvalidError(target, `${label} is a multi-platform image index, not a single image`);
  }
  return descriptor;
}

/** The descriptor of `index.json` that `ref` (tag or digest; none: the only one) names. */
async function selectDescriptor(target: string, ref: string | undefined): Promise<Descriptor> {
  const index = await readLayoutIndex(target);
  let matches: readonly Descriptor[];
  if (ref === undefined) matches = index.manifests;
  else if (isDigest(ref)) matches = index.manifests.filter((m) => m.digest === ref);
  else matches = index.manifests.filter((m) => m.annotations?.[REF_NAME_ANNOTATION] === ref);
  const label = ref === undefined ? 'the layout' : JSON.stringify(ref);
  if (matches.length === 0) throw new LayoutInvalidError(target, `no manifest for ${label}`);
  if (matches.length > 1 && new Set(matches.map((m) => m.digest)).size > 1) {
    throw new LayoutInvalidError(target, `${matches.length} manifests match ${label}; name a tag or digest`);
  }
  return matches[0]!;
}

function blobReader(target: string): (digest: string) => Promise<Uint8Array> {
  return async (digest) => {
    try {
      return await readFile(join(target, 'blobs', 'sha256', digestHex(digest)));
    } catch (err) {
      throw new LayoutInvalidError(target, `missing blob ${digest}`, { cause: err });
    }
  };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
