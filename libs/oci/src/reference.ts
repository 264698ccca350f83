import { isDigest } from './digest.js';
import { ReferenceInvalidError } from './errors.js';
import {
  IMAGE_ID_PATTERN,
  NAME_COMPONENT_PATTERN,
  NAME_TOTAL_LENGTH_MAX,
  splitDockerDomain,
  TAG_PATTERN,
} from './reference-grammar.js';

export { DOCKER_HUB } from './reference-grammar.js';

/** A parsed image reference `registry/repository[:tag][@digest]`. */
export interface ImageReference {
  /** Registry host and optional port as written (`docker.io` for Docker Hub), e.g. `127.0.0.1:5000`. */
  readonly registry: string;
  /** Repository path, e.g. `team/bundle` (`library/x` for Docker Hub official images). */
  readonly repository: string;
  readonly tag?: string;
  readonly digest?: string;
}

// The grammar's domain, widened as Docker's client reads one: an IPv6 address in brackets.
const DOMAIN =
  /^(?:\[[0-9a-fA-F:]+\]|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*)(?::\d+)?$/;

/**
 * Parses an image reference the way Docker does, on the grammar of `reference-grammar.ts`: the first path
 * component is the registry when it contains a `.` or `:` or is `localhost`; otherwise the registry is Docker
 * Hub (`docker.io`, with `library/` prepended to single-component names). Only `sha256` digests are accepted;
 * surrounding spaces are ignored and an IPv6 registry may be written in brackets.
 *
 * @throws ReferenceInvalidError with a one-line reason.
 */
export function parseReference(reference: string): ImageReference {
  let rest = reference.trim();
  if (rest === '') throw new ReferenceInvalidError(reference, 'empty reference');
  // As Docker: a bare 64-hex string is an image ID, never a repository name.
  if (IMAGE_ID_PATTERN.test(rest)) {
    throw new ReferenceInvalidError(
      reference,
      'a 64-character hexadecimal string is an image ID, not a name',
    );
  }
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!isDigest(digest))
      throw new ReferenceInvalidError(reference, `unsupported digest ${JSON.stringify(digest)}`);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG_PATTERN.test(tag))
      throw new ReferenceInvalidError(reference, `invalid tag ${JSON.stringify(tag)}`);
  }
  const [registry, path] = splitDockerDomain(rest);
  if (!DOMAIN.test(registry))
    throw new ReferenceInvalidError(reference, `invalid registry ${JSON.stringify(registry)}`);
  const parts = path.split('/');
  for (const part of parts) {
    if (!NAME_COMPONENT_PATTERN.test(part)) {
      throw new ReferenceInvalidError(reference, `invalid repository component ${JSON.stringify(part)}`);
    }
  }
  const repository = parts.join('/');
  if (repository.length > NAME_TOTAL_LENGTH_MAX)
    throw new ReferenceInvalidError(reference, 'repository name longer than 255');
  return {
    registry,
    repository,
    ...(tag === undefined ? {} : { tag }),
    ...(digest === undefined ? {} : { digest }),
  };
}

/** Formats a reference back to `registry/repository[:tag][@digest]`. */
export function formatReference(ref: ImageReference): string {
  return `${ref.registry}/${ref.repository}${ref.tag === undefined ? '' : `:${ref.tag}`}${
    ref.digest === undefined ? '' : `@${ref.digest}`
  }`;
}
