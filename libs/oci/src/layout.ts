import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { digestHex, isDigest } from './digest.js';
import { LayoutInvalidError, OciError } from './errors.js';
import {
  assembleImage,
  type Descriptor,
  type ImageIndex,
  MediaType,
  type OciImage,
  parseIndex,
} from './image.js';

/** Annotation holding an image's tag in an OCI layout's `index.json`. */
export const REF_NAME_ANNOTATION = 'org.opencontainers.image.ref.name';

/** One image to write into a layout, optionally tagged (the tag goes into `org.opencontainers.image.ref.name`). */
export interface LayoutEntry {
  readonly image: OciImage;
  readonly tag?: string;
}

/**
 * Writes an OCI image layout (`oci-layout`, `index.json`, `blobs/sha256/…`) holding `entries` to `dir`.
 *
 * The layout is assembled in a sibling temporary directory and renamed into place, so readers see either the
 * previous layout or the complete new one, never a partial one. An existing `dir` is replaced.
 *
 * @throws LayoutInvalidError for a duplicate or malformed tag.
 */
export async function writeLayout(dir: string, entries: readonly LayoutEntry[]): Promise<void> {
  const target = resolve(dir);
  const tags = new Set<string>();
  for (const { tag } of entries) {
    if (tag === undefined) continue;
    if (tag === '' || /[\s]/.test(tag))
      throw new LayoutInvalidError(target, `invalid tag ${JSON.stringify(tag)}`);
    if (tags.has(tag)) throw new LayoutInvalidError(target, `duplicate tag ${JSON.stringify(tag)}`);
    tags.add(tag);
  }
  const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const tmp = join(dirname(target), `.${basename(target)}.tmp-${suffix}`);
  const old = join(dirname(target), `.${basename(target)}.old-${suffix}`);
  await mkdir(dirname(target), { recursive: true });
  try {
    await mkdir(join(tmp, 'blobs', 'sha256'), { recursive: true });
    const written = new Set<string>();
    const putBlob = async (digest: string, bytes: Uint8Array): Promise<void> => {
      if (written.has(digest)) return;
      written.add(digest);
      await writeFile(join(tmp, 'blobs', 'sha256', digestHex(digest)), bytes);
    };
    const manifests: Descriptor[] = [];
    for (const { image, tag } of entries) {
      for (const layer of image.layers) await putBlob(layer.descriptor.digest, layer.bytes);
      await putBlob(image.manifest.config.digest, image.configBytes);
      await putBlob(image.digest, image.manifestBytes);
      manifests.push({
        mediaType: image.mediaType,
        digest: image.digest,
        size: image.manifestBytes.byteLength,
        ...(tag === undefined ? {} : { annotations: { [REF_NAME_ANNOTATION]: tag } }),
      });
    }
    const index: ImageIndex = { schemaVersion: 2, mediaType: MediaType.ociIndex, manifests };
    await writeFile(join(tmp, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
    await writeFile(join(tmp, 'index.json'), JSON.stringify(index));
    let replaced = false;
    try {
      await rename(target, old);
      replaced = true;
    } catch (err) {
      if (!isErrno(err, 'ENOENT')) throw err;
    }
    await rename(tmp, target);
    if (replaced) await rm(old, { recursive: true, force: true });
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    if (err instanceof OciError) throw err;
    throw new LayoutInvalidError(target, `cannot write layout: ${errorMessage(err)}`, { cause: err });
  }
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
 * @throws LayoutInvalidError when the reference is absent or ambiguous or a blob is missing;
 *   ManifestInvalidError / DigestMismatchError for corrupt content.
 */
export async function readLayout(dir: string, ref?: string): Promise<OciImage> {
  const target = resolve(dir);
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
  const descriptor = matches[0]!;
  const readBlob = async (digest: string): Promise<Uint8Array> => {
    try {
      return await readFile(join(target, 'blobs', 'sha256', digestHex(digest)));
    } catch (err) {
      throw new LayoutInvalidError(target, `missing blob ${digest}`, { cause: err });
    }
  };
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

function isErrno(err: unknown, code: string): boolean {
  return err instanceof Error && (err as NodeJS.ErrnoException).code === code;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
