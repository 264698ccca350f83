import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { LayoutInvalidError } from './errors.js';
import type { OciImage } from './image.js';
import type { ImagePlatforms, OciImageIndex, ReadIndexOptions } from './image-index.js';
import { readLayoutEntry, readLayoutPlatforms } from './layout.js';
import { parseReference } from './reference.js';
import type { ProgressEvent, RegistryClient } from './registry-client.js';

/** Where an image is read from: an OCI image layout on disk, or a registry. */
export type ImageSource =
  | {
      readonly kind: 'layout';
      /** Absolute path of the layout directory. */
      readonly dir: string;
      /** Tag or digest inside the layout; none: its only entry. */
      readonly ref?: string;
    }
  | {
      readonly kind: 'registry';
      /** `registry/repository[:tag][@digest]`. */
      readonly reference: string;
    };

/** Options of {@link loadImageSource}. */
export interface LoadImageSourceOptions extends ReadIndexOptions {
  /** Client for a registry source; required for one. */
  readonly client?: RegistryClient;
  /** Progress of blob downloads from a registry. */
  readonly onProgress?: (event: ProgressEvent) => void;
}

const LAYOUT_PREFIX = 'oci:';

/**
 * Tells a layout from a registry reference, the way skopeo names them:
 *
 * - `oci:<dir>[:<ref>]` is always a layout;
 * - `<dir>` or `<dir>:<ref>` is a layout when `<dir>` is a directory holding an `oci-layout` file (the first
 *   `:` after which the text before it is such a directory splits path and ref, so refs may hold `:` and `/`,
 *   e.g. `dist/images/x:registry.example/x:1.0.0`);
 * - anything else is a registry reference, e.g. `gcr.io/distroless/nodejs24-debian12:nonroot`.
 *
 * @throws LayoutInvalidError for an `oci:` source, or a text that looks like a path (`/`, `./`, `../`), that
 *   names no layout; ReferenceInvalidError for a malformed registry reference.
 */
export async function parseImageSource(text: string): Promise<ImageSource> {
  const explicit = text.startsWith(LAYOUT_PREFIX);
  const body = explicit ? text.slice(LAYOUT_PREFIX.length) : text;
  for (let at = body.indexOf(':'); ; at = body.indexOf(':', at + 1)) {
    const dir = at === -1 ? body : body.slice(0, at);
    if (dir !== '' && (await isLayoutDir(dir))) {
      const ref = at === -1 ? '' : body.slice(at + 1);
      return { kind: 'layout', dir: resolve(dir), ...(ref === '' ? {} : { ref }) };
    }
    if (at === -1) break;
  }
  if (explicit || /^\.{0,2}\//.test(body)) {
    const dir = body.split(':')[0]!;
    throw new LayoutInvalidError(resolve(dir), 'no oci-layout file: not an OCI image layout');
  }
  parseReference(body);
  return { kind: 'registry', reference: body };
}

/**
 * Reads an image or image index from `source` (an {@link ImageSource} or its text, see
 * {@link parseImageSource}): from a layout with {@link readLayoutEntry}, from a registry with
 * `RegistryClient.pullAll`. A single image is returned whatever its platform; of an index only the platforms
 * `options.platforms` accepts are read.
 *
 * @throws the errors of the readers; LayoutInvalidError or ReferenceInvalidError for an unusable source.
 */
export async function loadImageSource(
  source: ImageSource | string,
  options: LoadImageSourceOptions = {},
): Promise<OciImage | OciImageIndex> {
  const parsed = typeof source === 'string' ? await parseImageSource(source) : source;
  const read = options.platforms === undefined ? {} : { platforms: options.platforms };
  if (parsed.kind === 'layout') return readLayoutEntry(parsed.dir, parsed.ref, read);
  if (options.client === undefined) {
    throw new TypeError(`loadImageSource needs a RegistryClient to pull ${parsed.reference}`);
  }
  return options.client.pullAll(parsed.reference, {
    ...read,
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  });
}

/**
 * The platforms the image at `source` (an {@link ImageSource} or its text, see {@link parseImageSource})
 * provides, reading only its index, or a single image's manifest and config: `readLayoutPlatforms` for a
 * layout, `RegistryClient.platforms` (its credentials go to the image's own registry only) for a reference.
 *
 * @throws the errors of the readers; LayoutInvalidError or ReferenceInvalidError for an unusable source.
 */
export async function readImageSourcePlatforms(
  source: ImageSource | string,
  client?: RegistryClient,
): Promise<ImagePlatforms> {
  const parsed = typeof source === 'string' ? await parseImageSource(source) : source;
  if (parsed.kind === 'layout') return readLayoutPlatforms(parsed.dir, parsed.ref);
  if (client === undefined) {
    throw new TypeError(`readImageSourcePlatforms needs a RegistryClient to read ${parsed.reference}`);
  }
  return client.platforms(parsed.reference);
}

/** `source` as text that {@link parseImageSource} reads back: `oci:<dir>[:<ref>]` or the reference. */
export function formatImageSource(source: ImageSource): string {
  if (source.kind === 'registry') return source.reference;
  return `${LAYOUT_PREFIX}${source.dir}${source.ref === undefined ? '' : `:${source.ref}`}`;
}

async function isLayoutDir(dir: string): Promise<boolean> {
  try {
    return (await stat(join(dir, 'oci-layout'))).isFile();
  } catch {
    return false;
  }
}
