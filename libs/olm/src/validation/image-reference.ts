/**
 * Docker image reference parsing as `reference.ParseNormalizedNamed` (go.podman.io/image docker/reference,
 * the same grammar as distribution/reference) does it, with its error texts. Used for `relatedImages`.
 */

const alphaNumeric = '[a-z0-9]+';
// The grammar's separator is `[-]*`; an empty separator only splits a run of alphanumerics, so `-+` accepts the
// same names without the exponential backtracking `[a-z0-9]+(?:[a-z0-9]+)*` costs JavaScript on a mismatch
// (Go's regexp never backtracks).
const separator = '(?:[._]|__|-+)';
const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const tag = '[\\w][\\w.-]{0,127}';
const digestPat = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}';
const nameComponent = `${alphaNumeric}(?:${separator}${alphaNumeric})*`;
const domain = `${domainComponent}(?:\\.${domainComponent})*(?::[0-9]+)?`;
const namePat = `(?:${domain}/)?${nameComponent}(?:/${nameComponent})*`;
const referenceRegexp = new RegExp(`^(${namePat})(?::(${tag}))?(?:@(${digestPat}))?$`);
const anchoredIdentifier = /^[a-f0-9]{64}$/;

const DIGEST_LENGTHS: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

function validateDigest(digest: string): string | undefined {
  const i = digest.indexOf(':');
  if (i <= 0 || i + 1 === digest.length) return 'invalid checksum digest format';
  const algorithm = digest.slice(0, i);
  const encoded = digest.slice(i + 1);
  const length = DIGEST_LENGTHS[algorithm];
  if (length === undefined) {
    return new RegExp(`^${digestPat}$`).test(digest)
      ? 'unsupported digest algorithm'
      : 'invalid checksum digest format';
  }
  if (encoded.length !== length) return 'invalid checksum digest length';
  if (!/^[a-f0-9]+$/.test(encoded)) return 'invalid checksum digest format';
  return undefined;
}

function splitDockerDomain(name: string): [string, string] {
  const i = name.indexOf('/');
  let domainPart: string;
  let remainder: string;
  if (i === -1 || (!/[.:]/.test(name.slice(0, i)) && name.slice(0, i) !== 'localhost')) {
    domainPart = 'docker.io';
    remainder = name;
  } else {
    domainPart = name.slice(0, i);
    remainder = name.slice(i + 1);
  }
  if (domainPart === 'index.docker.io') domainPart = 'docker.io';
  if (domainPart === 'docker.io' && !remainder.includes('/')) remainder = `library/${remainder}`;
  return [domainPart, remainder];
}

/** Why `ParseNormalizedNamed(image)` fails, or `undefined` when the reference is valid. */
export function imageReferenceProblem(image: string): string | undefined {
  if (anchoredIdentifier.test(image)) {
    return `invalid repository name (${image}), cannot specify 64-byte hexadecimal strings`;
  }
  const [domainPart, remainder] = splitDockerDomain(image);
  const tagSep = remainder.indexOf(':');
  const remoteName = tagSep > -1 ? remainder.slice(0, tagSep) : remainder;
  if (remoteName.toLowerCase() !== remoteName)
    return 'invalid reference format: repository name must be lowercase';
  const s = `${domainPart}/${remainder}`;
  const match = referenceRegexp.exec(s);
  if (match === null) {
    if (referenceRegexp.test(s.toLowerCase())) return 'repository name must be lowercase';
    return 'invalid reference format';
  }
  if (match[1]!.length > 255) return 'repository name must not be more than 255 characters';
  if (match[3] !== undefined) return validateDigest(match[3]);
  return undefined;
}
