import { redact } from './redact.js';

/** Stable machine-readable codes carried by every error this package throws. */
export type OciErrorCode =
  | 'OCI_REFERENCE_INVALID'
  | 'OCI_LAYER_INVALID'
  | 'OCI_INPUT_INVALID'
  | 'OCI_LAYOUT_INVALID'
  | 'OCI_MANIFEST_INVALID'
  | 'OCI_DIGEST_MISMATCH'
  | 'OCI_NOT_FOUND'
  | 'OCI_REGISTRY_UNREACHABLE'
  | 'OCI_LENGTH_MISMATCH'
  | 'OCI_AUTH_FAILED'
  | 'OCI_CREDENTIALS_INVALID'
  | 'OCI_REGISTRY_ERROR';

/**
 * Base class of every error thrown by `@opkit/oci`. `code` is stable and meant for programs; `message` is one
 * line meant for people and names the registry, reference, layout or path involved, with the secrets of any
 * URL, header or credential in it hidden ({@link redact}).
 */
export class OciError extends Error {
  /** Stable error code. */
  readonly code: OciErrorCode;

  constructor(code: OciErrorCode, message: string, options?: ErrorOptions) {
    super(redact(message), options);
    this.code = code;
    this.name = 'OciError';
  }
}

/** An image reference (`registry/repository:tag@digest`) could not be parsed. */
export class ReferenceInvalidError extends OciError {
  constructor(
    readonly reference: string,
    reason: string,
  ) {
    super('OCI_REFERENCE_INVALID', `invalid image reference ${JSON.stringify(reference)}: ${reason}`);
    this.name = 'ReferenceInvalidError';
  }
}

/** A layer could not be built from the given files (bad path, duplicate entry, unsupported file type). */
export class LayerInvalidError extends OciError {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super('OCI_LAYER_INVALID', `cannot add ${JSON.stringify(path)} to layer: ${reason}`);
    this.name = 'LayerInvalidError';
  }
}

/** The input of an image builder (bundle or catalog directory, labels) is unusable. */
export class InputInvalidError extends OciError {
  constructor(message: string, options?: ErrorOptions) {
    super('OCI_INPUT_INVALID', message, options);
    this.name = 'InputInvalidError';
  }
}

/** An OCI image layout directory is missing, malformed, or does not hold the requested reference. */
export class LayoutInvalidError extends OciError {
  constructor(
    readonly layout: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super('OCI_LAYOUT_INVALID', `OCI layout ${layout}: ${reason}`, options);
    this.name = 'LayoutInvalidError';
  }
}

/** A manifest, index or image config is not valid JSON of the expected shape, or is of an unsupported type. */
export class ManifestInvalidError extends OciError {
  constructor(
    readonly where: string,
    reason: string,
  ) {
    super('OCI_MANIFEST_INVALID', `invalid manifest for ${where}: ${reason}`);
    this.name = 'ManifestInvalidError';
  }
}

/** Content did not hash to the digest that names it. */
export class DigestMismatchError extends OciError {
  constructor(
    readonly where: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super('OCI_DIGEST_MISMATCH', `digest mismatch for ${where}: expected ${expected}, got ${actual}`);
    this.name = 'DigestMismatchError';
  }
}

/** The registry answered 404 for a manifest, tag, repository or blob. */
export class NotFoundError extends OciError {
  constructor(
    readonly registry: string,
    readonly reference: string,
    what: string,
  ) {
    super('OCI_NOT_FOUND', `${what} not found on ${registry} for ${reference}`);
    this.name = 'NotFoundError';
  }
}

/** The registry could not be reached (connection refused, reset, DNS, TLS) after all retries. */
export class RegistryUnreachableError extends OciError {
  constructor(
    readonly registry: string,
    readonly reference: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(
      'OCI_REGISTRY_UNREACHABLE',
      `registry ${registry} unreachable for ${reference}: ${reason}`,
      options,
    );
    this.name = 'RegistryUnreachableError';
  }
}

/**
 * A registry sent a body of another length than it announced (Content-Length) or than the descriptor naming the
 * content says: `registry r sent 12 bytes for blob sha256:…, Content-Length said 100`.
 */
export class LengthMismatchError extends OciError {
  constructor(
    readonly registry: string,
    readonly reference: string,
    /** What was sent, and what was said about it: `12 bytes for blob sha256:…, Content-Length said 100`. */
    detail: string,
    options?: ErrorOptions,
  ) {
    super('OCI_LENGTH_MISMATCH', `registry ${registry} sent ${detail} (${reference})`, options);
    this.name = 'LengthMismatchError';
  }
}

/** The registry or its token service rejected the credentials, or anonymous access was denied. */
export class AuthFailedError extends OciError {
  constructor(
    readonly registry: string,
    readonly reference: string,
    reason: string,
  ) {
    super('OCI_AUTH_FAILED', `authentication to ${registry} failed for ${reference}: ${reason}`);
    this.name = 'AuthFailedError';
  }
}

/** A registry login file could not be read, or a credential helper failed. */
export class CredentialsError extends OciError {
  constructor(message: string, options?: ErrorOptions) {
    super('OCI_CREDENTIALS_INVALID', message, options);
    this.name = 'CredentialsError';
  }
}

/** The registry answered with an unexpected status (after retries for 5xx and 429). */
export class RegistryError extends OciError {
  constructor(
    readonly registry: string,
    readonly reference: string,
    readonly status: number,
    reason: string,
  ) {
    super('OCI_REGISTRY_ERROR', `registry ${registry} failed for ${reference}: ${reason}`);
    this.name = 'RegistryError';
  }
}
