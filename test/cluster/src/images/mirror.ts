import { parseReference } from '@opkit/oci';
import { ImageBuildError } from './errors.js';

/**
 * Where an image lives in the local registry that containerd uses as a mirror of every upstream registry:
 * under its repository path exactly as a registry client asks for it, without the registry host.
 *
 *   docker.io/library/memcached:1.6  → <local>/library/memcached:1.6   (Docker Hub's implied `library/`)
 *   registry.k8s.io/pause:3.10.1     → <local>/pause:3.10.1
 *   docker.io/opkit/node:24          → <local>/opkit/node:24
 *
 * containerd sends a mirror the same `/v2/<repository>/…` paths it would send the upstream registry, so this
 * is the only mapping that works without rewriting. Registries share one namespace here: our own images use
 * `docker.io/opkit/…`, which nothing upstream of ours occupies.
 *
 * @throws ReferenceInvalidError for an unparsable reference, ImageBuildError when it has no tag.
 */
export function mirrorRepository(reference: string): { readonly repository: string; readonly tag: string } {
  const ref = parseReference(reference);
  if (ref.tag === undefined)
    throw new ImageBuildError(`image reference ${reference} needs a tag to be mirrored`);
  return { repository: ref.repository, tag: ref.tag };
}

/** `reference` as stored in the local registry at `registryHost` (`127.0.0.1:<port>`). */
export function localMirrorReference(reference: string, registryHost: string): string {
  const { repository, tag } = mirrorRepository(reference);
  return `${registryHost}/${repository}:${tag}`;
}
