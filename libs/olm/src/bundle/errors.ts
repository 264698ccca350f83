/** Stable codes of {@link BundleError}. */
export type BundleErrorCode =
  /** A bundle directory on disk is not a readable registry+v1 bundle. */
  | 'OLM_BUNDLE_MALFORMED'
  /** The inputs of {@link writeBundle} are inconsistent (no package, unsupported kind, duplicate file, …). */
  | 'OLM_BUNDLE_INPUT_INVALID'
  /** Writing the bundle failed; nothing was left behind. */
  | 'OLM_BUNDLE_WRITE_FAILED';

/** One precise problem found while reading a bundle directory. */
export interface BundleProblem {
  /** Path of the offending file or directory, relative to the bundle directory (e.g. `manifests/x.yaml`). */
  readonly file: string;
  /** The field concerned, when there is one (e.g. `kind`, an annotation key). */
  readonly field?: string;
  /** What is wrong. */
  readonly reason: string;
}

/** Formats a problem as `file: field: reason`. */
export function formatBundleProblem(problem: BundleProblem): string {
  return problem.field === undefined
    ? `${problem.file}: ${problem.reason}`
    : `${problem.file}: ${problem.field}: ${problem.reason}`;
}

/** A bundle could not be read, written or assembled. */
export class BundleError extends Error {
  override readonly name = 'BundleError';

  /**
   * @param code stable machine-readable code
   * @param message human-readable summary
   * @param problems every problem found (for `OLM_BUNDLE_MALFORMED`)
   */
  constructor(
    readonly code: BundleErrorCode,
    message: string,
    readonly problems: readonly BundleProblem[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
