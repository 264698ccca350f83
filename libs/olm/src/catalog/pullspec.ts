/**
 * Image pull-spec validation as opm does it for `olm.bundle` images: `reference.ParseNormalizedNamed` from
 * go.podman.io/image/v5/docker/reference (distribution's grammar) plus go-digest validation, with their messages.
 */

const ALPHANUMERIC = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]*)';
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}';
const NAME_COMPONENT = `${ALPHANUMERIC}(?:${SEPARATOR}${ALPHANUMERIC})*`;
const DOMAIN = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*(?::[0-9]+)?`;
const NAME = `(?:${DOMAIN}/)?${NAME_COMPONENT}(?:/${NAME_COMPONENT})*`;
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const ANCHORED_IDENTIFIER = /^[a-f0-9]{64}$/;
const DIGEST_ANCHORED = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;
const DIGEST_SIZES: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };
const NAME_TOTAL_LENGTH_MAX = 255;

function splitDockerDomain(name: string): [string, string] {
  const i = name.indexOf('/');
  let domain: string;
  let remainder: string;
  if (i === -1 || (!/[.:]/.test(name.slice(0, i)) && name.slice(0, i) !== 'localhost')) {
    domain = 'docker.io';
    remainder = name;
  } else {
    domain = name.slice(0, i);
    remainder = name.slice(i + 1);
  }
  if (domain === 'index.docker.io') domain = 'docker.io';
  if (domain === 'docker.io' && !remainder.includes('/')) remainder = `library/${remainder}`;
  return [domain, remainder];
}

function validateDigest(d: string): string | undefined {
  const i = d.indexOf(':');
  if (i <= 0 || i + 1 === d.length) return 'invalid checksum digest format';
  const algorithm = d.slice(0, i);
  const encoded = d.slice(i + 1);
  const size = DIGEST_SIZES[algorithm];
  if (size === undefined) {
    return DIGEST_ANCHORED.test(d) ? 'unsupported digest algorithm' : 'invalid checksum digest format';
  }
  if (encoded.length !== size) return 'invalid checksum digest length';
  return /^[a-f0-9]+$/.test(encoded) ? undefined : 'invalid checksum digest format';
}

function parse(s: string): string | undefined {
  const m = REFERENCE.exec(s);
  if (!m) {
    if (s === '') return 'repository name must have at least one component';
    if (REFERENCE.test(s.toLowerCase())) return 'repository name must be lowercase';
    return 'invalid reference format';
  }
  if (m[1]!.length > NAME_TOTAL_LENGTH_MAX) return 'repository name must not be more than 255 characters';
  if (m[3] !== undefined) return validateDigest(m[3]);
  return undefined;
}

/**
 * Checks an image pull spec like `reference.ParseNormalizedNamed`.
 *
 * @returns the Go error text (e.g. `invalid reference format`), or `undefined` when the spec is valid.
 */
export function pullSpecError(spec: string): string | undefined {
  if (ANCHORED_IDENTIFIER.test(spec)) {
    return `invalid repository name (${spec}), cannot specify 64-byte hexadecimal strings`;
  }
  const [domain, remainder] = splitDockerDomain(spec);
  const tagSep = remainder.indexOf(':');
  const remoteName = tagSep > -1 ? remainder.slice(0, tagSep) : remainder;
  if (remoteName.toLowerCase() !== remoteName)
    return 'invalid reference format: repository name must be lowercase';
  return parse(`${domain}/${remainder}`);
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** apimachinery's `validation.IsDNS1123Label`: the list of problems, empty when `value` is a valid label. */
export function dns1123LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (new TextEncoder().encode(value).length > 63) errs.push('must be no more than 63 characters');
  if (!DNS1123_LABEL.test(value)) {
    if (DNS1123_SUBDOMAIN.test(value)) errs.push('must not contain dots');
    else {
      errs.push(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and " +
          "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is " +
          "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      );
    }
  }
  return errs;
}
