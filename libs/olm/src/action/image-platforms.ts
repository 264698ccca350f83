// The platforms images provide, read from their registries or from OCI layouts standing in for them: what the
// `multiarch` validator and the bundle step's platform labels are made from.
import type { ImagePlatforms, RegistryClient } from '@opkit/oci';
import type { ImageInspector } from '../validation/multiarch.js';
import { ActionError } from './errors.js';

/** Where images are read from. */
export interface ImagePlatformSources {
  /** The client image references are read with; the caller closes it. Needed only for a reference. */
  readonly registry?: () => RegistryClient;
  /**
   * Image reference (as the CSV names it) → the OCI layout read in its place (`<dir>` or `<dir>:<tag>`), for
   * images not pushed yet.
   */
  readonly layouts?: ReadonlyMap<string, string>;
}

/**
 * The platforms of `image`: from the layout `sources.layouts` names for it, else from its registry (only the
 * index, or a single image's manifest and config, are read).
 *
 * @throws the readers' errors (`OciError`s naming the registry or layout and reference).
 */
export async function readImagePlatforms(
  image: string,
  sources: ImagePlatformSources,
): Promise<ImagePlatforms> {
  const { parseImageSource, readImageSourcePlatforms } = await import('@opkit/oci');
  const layout = sources.layouts?.get(image);
  if (layout !== undefined) {
    const parsed = await parseImageSource(layout);
    if (parsed.kind !== 'layout') {
      throw new ActionError(
        'OPKIT_ARGUMENT_INVALID',
        `--image-layout ${image}=${layout}: ${layout} is no OCI image layout (it has no oci-layout file)`,
      );
    }
    return readImageSourcePlatforms(parsed);
  }
  if (sources.registry === undefined) {
    throw new ActionError(
      'OPKIT_ARGUMENT_INVALID',
      `${image}: no registry client and no --image-layout for this image`,
    );
  }
  return readImageSourcePlatforms({ kind: 'registry', reference: image }, sources.registry());
}

/**
 * Reads each of `images` once and answers the `multiarch` validator with what was read: the platforms, or the
 * reason it could not be read as one line (secrets redacted), which the validator reports as Go's does an
 * image its container tool could not inspect.
 */
export async function inspectImagePlatforms(
  images: readonly string[],
  sources: ImagePlatformSources,
): Promise<ImageInspector> {
  const { redact } = await import('@opkit/oci');
  const read = new Map<string, ReturnType<ImageInspector>>();
  for (const image of new Set(images)) {
    try {
      read.set(image, { platforms: (await readImagePlatforms(image, sources)).platforms });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      read.set(image, { error: redact(message.split('\n')[0] ?? message) });
    }
  }
  return (image) => read.get(image) ?? { error: 'not read' };
}
