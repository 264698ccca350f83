import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LayoutImage, openLayoutImage, type Platform, type RegistryClient } from '@opkit/oci';
import { ActionError } from './errors.js';

/** The image picked from an image index, as `RegistryClient.pull` picks it. */
const PLATFORM: Platform = { os: 'linux', architecture: 'amd64' };

/** How much a pull may take: bytes of configs and layers, and time. */
export interface PullLimits {
  /** Most bytes downloaded (configs and layers); default: no limit. */
  readonly maxBytes?: number;
  /** Most milliseconds the pull may take; default: no limit. */
  readonly timeoutMs?: number;
}

/**
 * Pulls `reference` into a temporary OCI layout, every blob streamed to disk with its digest checked on the
 * way, and hands its image, layers left on disk, to `use`; the layout is removed however `use` ends. Memory
 * stays bounded whatever the size of the layers; `limits` bound the download and its time.
 *
 * @throws ActionError `OPKIT_IMAGE_TOO_LARGE` or `OPKIT_IMAGE_PULL_TIMEOUT` naming the image and the limit
 */
export async function withPulledImage<T>(
  client: RegistryClient,
  reference: string,
  use: (image: LayoutImage) => Promise<T>,
  signal?: AbortSignal,
  limits: PullLimits = {},
): Promise<T> {
  const timeout = limits.timeoutMs === undefined ? undefined : AbortSignal.timeout(limits.timeoutMs);
  const stop =
    timeout === undefined ? signal : signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
  const dir = await mkdtemp(join(tmpdir(), 'opkit-pull-'));
  try {
    const layout = join(dir, 'layout');
    await client
      .pullToLayout(reference, layout, {
        platform: PLATFORM,
        ...(stop === undefined ? {} : { signal: stop }),
        ...(limits.maxBytes === undefined ? {} : { maxBytes: limits.maxBytes }),
      })
      .catch((error: unknown) => {
        if (timeout?.aborted === true && signal?.aborted !== true)
          throw new ActionError(
            'OPKIT_IMAGE_PULL_TIMEOUT',
            `${reference}: the pull took longer than the ${limits.timeoutMs} ms allowed`,
            { cause: error },
          );
        if (limits.maxBytes !== undefined && /past the \d+ bytes this pull allows/.test(String(error)))
          throw new ActionError(
            'OPKIT_IMAGE_TOO_LARGE',
            `${reference}: the image is larger than the ${limits.maxBytes} bytes (${limits.maxBytes / 2 ** 20} MiB) allowed`,
            { cause: error },
          );
        throw error;
      });
    return await use(await openLayoutImage(layout));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
