/** Stable codes of the registry module's errors. */
export type RegistryErrorCode =
  | 'REGISTRY_CATALOG_INVALID'
  | 'REGISTRY_BUNDLE_INVALID'
  | 'REGISTRY_INLINE_CONTENT_MISSING'
  | 'REGISTRY_LISTEN_FAILED'
  | 'REGISTRY_CACHE_STALE';

/** A catalog cannot be served: `message` names the package, bundle or file and the reason. */
export class RegistryError extends Error {
  readonly code: RegistryErrorCode;
  constructor(code: RegistryErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = 'RegistryError';
  }
}

/**
 * A query found nothing (or its input names nothing). `message` is opm's text, which clients see as the gRPC
 * status message (status code UNKNOWN, as opm returns plain errors).
 */
export class RegistryQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistryQueryError';
  }
}
