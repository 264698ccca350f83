import type { ManifestResult } from '../validation/result.js';

/** Stable codes of {@link CsvError}. */
export type CsvErrorCode =
  /** The inputs cannot produce a CSV (bad version, no base name, conflicting related images, …). */
  | 'OLM_CSV_INPUT_INVALID'
  /** The generated CSV fails the CSV validator (as `operator-sdk generate bundle` refuses to write it). */
  | 'OLM_CSV_INVALID'
  /** An install mode is malformed, or the CSV does not support the one asked for. */
  | 'OLM_INSTALL_MODE_INVALID';

/** Why a ClusterServiceVersion could not be generated. */
export class CsvError extends Error {
  override readonly name = 'CsvError';

  /**
   * @param code stable machine-readable code
   * @param message human-readable reason
   * @param results validator findings when `code` is `OLM_CSV_INVALID`
   */
  constructor(
    readonly code: CsvErrorCode,
    message: string,
    readonly results: readonly ManifestResult[] = [],
  ) {
    super(message);
  }
}
