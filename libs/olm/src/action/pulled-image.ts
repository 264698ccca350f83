import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LayoutImage, openLayoutImage, type Platform, type RegistryClient } from '@opkit/oci';

/** The image picked from an image index, as `RegistryClient.pull` picks it. */
const PLATFORM: Platform = { os: 'linux', architecture: 'amd64' };

/**
 * Pulls `reference` into a temporary OCI layout, every blob streamed to disk with its digest checked on the
 * way, and hands its image, layers left on disk, to `use`; the layout is removed however `use` ends. Memory
 * stays bounded whatever the size of the layers.
 */
export async function withPulledImage<T>(
  client: RegistryClient,
  reference: string,
  use: (image: LayoutImage) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'opkit-pull-'));
  try {
    const layout = join(dir, 'layout');
    await client.pullToLayout(reference, layout, {
      platform: PLATFORM,
      ...(signal === undefined ? {} : { signal }),
    });
    return await use(await openLayoutImage(layout));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
