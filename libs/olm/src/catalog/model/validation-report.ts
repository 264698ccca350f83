import type {
  ValidationCode,
  ValidationLevel,
  ValidationResult,
  ValidationStage,
} from './validation-result.js';

/** What a finding points at; unset fields stay absent from the result. */
export interface FindingLocation {
  readonly package?: string | undefined;
  readonly channel?: string | undefined;
  readonly bundle?: string | undefined;
  readonly file?: string | undefined;
}

/** Records one finding of a given stage and level. */
export type ReportFinding = (code: ValidationCode, message: string, where?: FindingLocation) => void;

/** The findings of one validation run, in the order they were reported. */
export class ValidationReport {
  readonly results: ValidationResult[] = [];

  /** A reporter for findings of `stage`, at `level`. */
  reporter(stage: ValidationStage, level: ValidationLevel = 'error'): ReportFinding {
    return (code, message, where = {}) => {
      this.results.push(validationResult(level, code, stage, message, where));
    };
  }
}

function validationResult(
  level: ValidationLevel,
  code: ValidationCode,
  stage: ValidationStage,
  message: string,
  where: FindingLocation,
): ValidationResult {
  // Key order is part of the result's JSON form: level, code, stage, message, then the location.
  const result: { -readonly [K in keyof ValidationResult]: ValidationResult[K] } = {
    level,
    code,
    stage,
    message,
  };
  if (where.package !== undefined) result.package = where.package;
  if (where.channel !== undefined) result.channel = where.channel;
  if (where.bundle !== undefined) result.bundle = where.bundle;
  if (where.file !== undefined) result.file = where.file;
  return result;
}
