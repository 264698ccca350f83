import { normalizedReferenceProblem } from '@opkit/oci/reference-grammar';

/**
 * Why `reference.ParseNormalizedNamed(image)` (go.podman.io/image docker/reference, what operator-framework/api
 * validates `relatedImages` with) refuses `image`, in its words, or `undefined` when the reference is valid.
 * The grammar is `@opkit/oci`'s, which the registry client parses with.
 */
export function imageReferenceProblem(image: string): string | undefined {
  return normalizedReferenceProblem(image);
}
