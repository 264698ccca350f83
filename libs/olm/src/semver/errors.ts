/** Stable machine-readable codes of the errors thrown by the blang-compatible semver module. */
export type SemverErrorCode = 'SEMVER_INVALID_VERSION' | 'SEMVER_INVALID_RANGE';

/**
 * A version or range could not be parsed. `message` is exactly what blang/semver v4 reports for the same input
 * (so it can be embedded in opm-compatible messages); `input` is the offending text.
 */
export class SemverError extends Error {
  /** Stable error code. */
  readonly code: SemverErrorCode;

  constructor(
    code: SemverErrorCode,
    readonly input: string,
    message: string,
  ) {
    super(message);
    this.code = code;
    this.name = 'SemverError';
  }
}
