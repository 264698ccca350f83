import { parseReference, type RegistryClient } from '@opkit/oci';
import type { Manifest } from '../manifest/manifest.js';
import { ActionError } from './errors.js';

/**
 * The images a bundle's Deployments name: every container's and init container's image, and the value of
 * every `RELATED_IMAGE_*` variable (the operands), as `operator-sdk generate bundle --use-image-digests`
 * pins them.
 */
export function deploymentImages(objects: readonly Manifest[]): string[] {
  const images = new Set<string>();
  for (const obj of objects) {
    if (obj.kind !== 'Deployment') continue;
    const podSpec = (obj.spec as { template?: { spec?: Record<string, unknown> } } | undefined)?.template
      ?.spec;
    for (const key of ['containers', 'initContainers']) {
      const list = podSpec?.[key];
      for (const c of Array.isArray(list) ? list : []) {
        const container = c as { image?: unknown; env?: unknown };
        if (typeof container.image === 'string') images.add(container.image);
        for (const e of Array.isArray(container.env) ? container.env : []) {
          const env = e as { name?: unknown; value?: unknown };
          if (
            typeof env.name === 'string' &&
            env.name.startsWith('RELATED_IMAGE_') &&
            typeof env.value === 'string'
          )
            images.add(env.value);
        }
      }
    }
  }
  return [...images];
}

/** `registry/repository@sha256:…` for a tag reference, from what the registry serves now. */
export async function pinnedReference(client: RegistryClient, image: string): Promise<string> {
  const ref = parseReference(image);
  if (ref.digest !== undefined) return `${ref.registry}/${ref.repository}@${ref.digest}`;
  try {
    const { digest } = await client.resolve(image);
    return `${ref.registry}/${ref.repository}@${digest}`;
  } catch (error) {
    throw new ActionError(
      'OPKIT_IMAGE_UNRESOLVED',
      `cannot pin ${image} to a digest: ${(error as Error).message} (push it first, or leave out --use-image-digests)`,
    );
  }
}

/** Replaces every exact occurrence of each image, as a JSON string value, in the objects. */
export function withImages(objects: readonly Manifest[], pins: ReadonlyMap<string, string>): Manifest[] {
  return objects.map((obj) => {
    let text = JSON.stringify(obj);
    for (const [from, to] of pins) text = text.replaceAll(JSON.stringify(from), JSON.stringify(to));
    return JSON.parse(text) as Manifest;
  });
}
