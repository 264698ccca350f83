/**
 * The grammar of container image references as distribution/reference writes it, and as go.podman.io/image's
 * `docker/reference` (which operator-framework/api and opm validate with) applies it: the one source of the
 * registry client's parser ({@link parseReference}) and of the validators' Go messages
 * ({@link normalizedReferenceProblem}). It imports nothing, so a validator can load it alone.
 */

const ALPHANUMERIC = '[a-z0-9]+';
// The grammar's separator is `[-]*`; an empty separator only splits a run of alphanumerics, so `-+` accepts the
// same names without the exponential backtracking `[a-z0-9]+(?:[a-z0-9]+)*` costs JavaScript on a mismatch
// (Go's regexp never backtracks).
const SEPARATOR = '(?:[._]|__|-+)';
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}';
const NAME_COMPONENT = `${ALPHANUMERIC}(?:${SEPARATOR}${ALPHANUMERIC})*`;
const DOMAIN = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*(?::[0-9]+)?`;
const NAME = `(?:${DOMAIN}/)?${NAME_COMPONENT}(?:/${NAME_COMPONENT})*`;
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);

/** One path component of a repository name (`team`, `memcached-operator`). */
export const NAME_COMPONENT_PATTERN = new RegExp(`^${NAME_COMPONENT}$`);
/** A tag (`v0.1.0`, `latest`). */
export const TAG_PATTERN = new RegExp(`^${TAG}$`);
/** A bare 64-hex string, which is an image ID and never a repository name. */
export const IMAGE_ID_PATTERN = /^[a-f0-9]{64}$/;
/** go-digest's `DigestRegexpAnchored`: the shape of any digest, known algorithm or not. */
const DIGEST_ANCHORED = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;
const DIGEST_SIZES: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };
/** The longest repository name, registry included. */
export const NAME_TOTAL_LENGTH_MAX = 255;

/** Docker Hub's canonical registry name. */
export const DOCKER_HUB = 'docker.io';

/** Whether the first path component of `name` is a registry host: it holds a `.` or `:` or is `localhost`. */
export function namesRegistryHost(name: string): boolean {
  const i = name.indexOf('/');
  if (i === -1) return false;
  const first = name.slice(0, i);
  return /[.:]/.test(first) || first === 'localhost';
}

/**
 * `name[:tag]` split at a trailing tag of the grammar, as references and OCI layout paths (`<dir>:<tag>`) end;
 * a `:` followed by anything else (a port, a `/`) is part of the name.
 */
export function splitTrailingTag(text: string): { readonly name: string; readonly tag?: string } {
  const m = TRAILING_TAG.exec(text);
  return m === null ? { name: text } : { name: text.slice(0, m.index), tag: m[1]! };
}
const TRAILING_TAG = new RegExp(`:(${TAG})$`);

/**
 * `splitDockerDomain`: the first path component is the registry when it holds a `.` or `:` or is `localhost`,
 * otherwise the registry is Docker Hub (`index.docker.io` is too), whose single-component names get `library/`.
 */
export function splitDockerDomain(name: string): [domain: string, remainder: string] {
  let domain = DOCKER_HUB;
  let remainder = name;
  if (namesRegistryHost(name)) {
    const i = name.indexOf('/');
    domain = name.slice(0, i);
    remainder = name.slice(i + 1);
  }
  if (domain === 'index.docker.io') domain = DOCKER_HUB;
  if (domain === DOCKER_HUB && !remainder.includes('/')) remainder = `library/${remainder}`;
  return [domain, remainder];
}

/** go-digest's `Digest.Validate`, with its error texts. */
function digestProblem(digest: string): string | undefined {
  const i = digest.indexOf(':');
  if (i <= 0 || i + 1 === digest.length) return 'invalid checksum digest format';
  const size = DIGEST_SIZES[digest.slice(0, i)];
  if (size === undefined) {
    return DIGEST_ANCHORED.test(digest) ? 'unsupported digest algorithm' : 'invalid checksum digest format';
  }
  const encoded = digest.slice(i + 1);
  if (encoded.length !== size) return 'invalid checksum digest length';
  return /^[a-f0-9]+$/.test(encoded) ? undefined : 'invalid checksum digest format';
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isLowerAlnum = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || isDigit(c);
const isAlnum = (c: number): boolean => isLowerAlnum(c) || (c >= 0x41 && c <= 0x5a);
const isWord = (c: number): boolean => isAlnum(c) || c === 0x5f;

/** Longer references take the grammar's path, which measures the name without its tag and normalized. */
const PLAIN_REFERENCE_MAX = 200;

/**
 * Whether `image` is a reference `reference.ParseNormalizedNamed` accepts, read in one pass without the grammar's
 * regular expression: an optional registry (`host[:port]/`, recognised as {@link namesRegistryHost} does), a
 * lowercase repository path and an optional tag, at most 200 characters, no digest. `false` means only that the
 * text is not of that plain shape; the grammar then decides. Catalogs name thousands of images, nearly all plain.
 */
export function isPlainValidReference(image: string): boolean {
  const n = image.length;
  if (n === 0 || n > PLAIN_REFERENCE_MAX) return false;
  let i = 0;
  const slash = image.indexOf('/');
  if (slash > 0 && namesRegistryHost(image)) {
    // DOMAIN_COMPONENT (`.` DOMAIN_COMPONENT)* (`:` port)?
    for (;;) {
      if (!isAlnum(image.charCodeAt(i))) return false;
      while (i < slash && (isAlnum(image.charCodeAt(i)) || image.charCodeAt(i) === 0x2d)) i++;
      if (image.charCodeAt(i - 1) === 0x2d) return false;
      if (image.charCodeAt(i) !== 0x2e) break;
      i++;
    }
    if (image.charCodeAt(i) === 0x3a) {
      i++;
      if (!isDigit(image.charCodeAt(i))) return false;
      while (i < slash && isDigit(image.charCodeAt(i))) i++;
    }
    if (i !== slash) return false;
    i++;
  } else if (n === 64 && IMAGE_ID_PATTERN.test(image)) {
    return false;
  }
  // NAME_COMPONENT (`/` NAME_COMPONENT)*, each `[a-z0-9]+` runs joined by `.`, `_`, `__` or `-+`.
  for (;;) {
    if (!isLowerAlnum(image.charCodeAt(i))) return false;
    while (i < n) {
      const c = image.charCodeAt(i);
      if (isLowerAlnum(c)) {
        i++;
        continue;
      }
      let next = i + 1;
      if (c === 0x5f && image.charCodeAt(next) === 0x5f) next++;
      else if (c === 0x2d) while (image.charCodeAt(next) === 0x2d) next++;
      else if (c !== 0x2e && c !== 0x5f) break;
      if (!isLowerAlnum(image.charCodeAt(next))) return false;
      i = next;
    }
    if (image.charCodeAt(i) !== 0x2f) break;
    i++;
  }
  if (i === n) return true;
  // `:` TAG, `[\w][\w.-]{0,127}`.
  if (image.charCodeAt(i) !== 0x3a) return false;
  const tagStart = ++i;
  if (!isWord(image.charCodeAt(i))) return false;
  while (i < n) {
    const c = image.charCodeAt(i);
    if (!isWord(c) && c !== 0x2e && c !== 0x2d) return false;
    i++;
  }
  return n - tagStart <= 128;
}

/**
 * Why `reference.ParseNormalizedNamed(image)` refuses `image`, in its words (`invalid reference format`,
 * `repository name must be lowercase`, the digest's own errors), or `undefined` when it accepts it.
 */
export function normalizedReferenceProblem(image: string): string | undefined {
  return isPlainValidReference(image) ? undefined : normalizedReferenceProblemByGrammar(image);
}

/** {@link normalizedReferenceProblem} decided by the grammar alone, without the plain-reference shortcut. */
export function normalizedReferenceProblemByGrammar(image: string): string | undefined {
  if (IMAGE_ID_PATTERN.test(image)) {
    return `invalid repository name (${image}), cannot specify 64-byte hexadecimal strings`;
  }
  const [domain, remainder] = splitDockerDomain(image);
  const tagSep = remainder.indexOf(':');
  const remoteName = tagSep > -1 ? remainder.slice(0, tagSep) : remainder;
  if (remoteName.toLowerCase() !== remoteName)
    return 'invalid reference format: repository name must be lowercase';
  const s = `${domain}/${remainder}`;
  // Without an `@` there is no digest, and a name no longer than the whole is short enough: no captures needed.
  if (s.length <= NAME_TOTAL_LENGTH_MAX && !s.includes('@') && REFERENCE.test(s)) return undefined;
  const match = REFERENCE.exec(s);
  if (match === null) {
    if (REFERENCE.test(s.toLowerCase())) return 'repository name must be lowercase';
    return 'invalid reference format';
  }
  if (match[1]!.length > NAME_TOTAL_LENGTH_MAX) return 'repository name must not be more than 255 characters';
  return match[3] === undefined ? undefined : digestProblem(match[3]);
}
