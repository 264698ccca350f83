import { normalizedReferenceProblem } from '@opkit/oci/reference-grammar';

/**
 * Checks an image pull spec as opm does for `olm.bundle` images: `reference.ParseNormalizedNamed` from
 * go.podman.io/image/v5/docker/reference (distribution's grammar, `@opkit/oci`'s) plus go-digest validation.
 *
 * @returns the Go error text (e.g. `invalid reference format`), or `undefined` when the spec is valid.
 */
export function pullSpecError(spec: string): string | undefined {
  return normalizedReferenceProblem(spec);
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
