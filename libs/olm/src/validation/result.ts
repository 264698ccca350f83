/**
 * The validation result model of operator-framework/api (`pkg/validation/errors/error.go`): one result per
 * validated manifest, each finding with a type, a level, a field, a bad value and a detail.
 */

/** Severity of a finding. */
export type Level = 'Error' | 'Warning';

/**
 * A Go `BadValue` as printed with `%v`. `undefined` stands for Go's `nil` (printed not at all); an empty
 * string is a real value (printed `Value :`). Structured values are pre-rendered to their Go text.
 */
export type ValidationValue = string | number | boolean;

/** One finding (Go `errors.Error`). */
export interface ValidationError {
  /** ErrorType string, e.g. `CSVFileNotValid`, `FieldNotFound`, `BundleNotValid`, `FieldValueInvalid`. */
  readonly type: string;
  readonly level: Level;
  /** Dot path of the field concerned, or `""`. */
  readonly field: string;
  /** The bad value; absent for Go `nil`. */
  readonly value?: ValidationValue;
  readonly detail: string;
}

/** The findings for one manifest (Go `errors.ManifestResult`; errors and warnings in one list). */
export interface ManifestResult {
  /** Some piece of information identifying the manifest (CSV name, CSV version, CRD name, bundle name). */
  readonly name: string;
  readonly errors: ValidationError[];
}

/** ErrorType strings of operator-framework/api. */
export const ErrorType = {
  invalidCsv: 'CSVFileNotValid',
  fieldMissing: 'FieldNotFound',
  unsupportedType: 'FieldTypeNotSupported',
  invalidParse: 'ParseError',
  io: 'FileReadError',
  failedValidation: 'ValidationFailed',
  invalidOperation: 'OperationFailed',
  invalidManifestStructure: 'ManifestStructureNotValid',
  invalidBundle: 'BundleNotValid',
  invalidPackageManifest: 'PackageManifestNotValid',
  objectFailedValidation: 'ObjectFailedValidation',
  propertiesAnnotationUsed: 'PropertiesAnnotationUsed',
  deprecatedValidator: 'DeprecatedValidator',
} as const;

function entry(
  type: string,
  level: Level,
  field: string,
  value: ValidationValue | undefined,
  detail: string,
) {
  const error: { -readonly [K in keyof ValidationError]: ValidationError[K] } = {
    type,
    level,
    field,
    detail,
  };
  if (value !== undefined) error.value = value;
  return error as ValidationError;
}

/** `errors.NewError`. */
export function newError(
  type: string,
  detail: string,
  field: string,
  value?: ValidationValue,
): ValidationError {
  return entry(type, 'Error', field, value, detail);
}

/** `errors.ErrInvalidCSV`: BadValue `""`, detail prefixed `(<csv>) `. */
export function errInvalidCsv(detail: string, csvName: string): ValidationError {
  return entry(ErrorType.invalidCsv, 'Error', '', '', `(${csvName}) ${detail}`);
}

/** `errors.WarnInvalidCSV`. */
export function warnInvalidCsv(detail: string, csvName: string): ValidationError {
  return entry(ErrorType.invalidCsv, 'Warning', '', '', `(${csvName}) ${detail}`);
}

/** `errors.ErrFieldMissing`. */
export function errFieldMissing(detail: string, field: string, value?: ValidationValue): ValidationError {
  return entry(ErrorType.fieldMissing, 'Error', field, value, detail);
}

/** `errors.ErrInvalidBundle`. */
export function errInvalidBundle(detail: string, value?: ValidationValue): ValidationError {
  return entry(ErrorType.invalidBundle, 'Error', '', value, detail);
}

/** `errors.WarnInvalidBundle` — which upstream reports at level **Error** (a bug kept for compatibility). */
export function warnInvalidBundle(detail: string, value?: ValidationValue): ValidationError {
  return entry(ErrorType.invalidBundle, 'Error', '', value, detail);
}

/** `errors.ErrInvalidParse`. */
export function errInvalidParse(detail: string, value?: ValidationValue): ValidationError {
  return entry(ErrorType.invalidParse, 'Error', '', value, detail);
}

/** `errors.ErrFailedValidation`. */
export function errFailedValidation(detail: string, value?: ValidationValue): ValidationError {
  return entry(ErrorType.failedValidation, 'Error', '', value, detail);
}

/** `errors.WarnFailedValidation`. */
export function warnFailedValidation(detail: string, value?: ValidationValue): ValidationError {
  return entry(ErrorType.failedValidation, 'Warning', '', value, detail);
}

/** `errors.ErrInvalidOperation`. */
export function errInvalidOperation(detail: string, value?: ValidationValue): ValidationError {
  return entry(ErrorType.invalidOperation, 'Error', '', value, detail);
}

/** `errors.WarnInvalidOperation`. */
export function warnInvalidOperation(detail: string, value?: ValidationValue): ValidationError {
  return entry(ErrorType.invalidOperation, 'Warning', '', value, detail);
}

/** `errors.ErrInvalidObject`. */
export function errInvalidObject(value: ValidationValue, detail: string): ValidationError {
  return entry(ErrorType.objectFailedValidation, 'Error', '', value, detail);
}

/** `errors.WarnInvalidObject` — which upstream types as `ValidationFailed`. */
export function warnInvalidObject(detail: string, value: ValidationValue): ValidationError {
  return entry(ErrorType.failedValidation, 'Warning', '', value, detail);
}

/** `errors.WarnPropertiesAnnotationUsed`. */
export function warnPropertiesAnnotationUsed(detail: string): ValidationError {
  return entry(ErrorType.propertiesAnnotationUsed, 'Warning', '', '', detail);
}

/** `errors.WarnDeprecatedValidator`. */
export function warnDeprecatedValidator(detail: string): ValidationError {
  return entry(ErrorType.deprecatedValidator, 'Warning', '', '', detail);
}

/**
 * The text of one finding, as Go's `Error.Error()` prints it:
 * `<Level>: Field <f>, Value <v>: <detail>` with the parts that are unset left out.
 */
export function formatValidationError(error: ValidationError): string {
  let detail = error.detail === '' ? '' : `: ${error.detail}`;
  if (error.field !== '' && error.value !== undefined) {
    detail = `Field ${error.field}, Value ${String(error.value)}${detail}`;
  } else if (error.field !== '') {
    detail = `Field ${error.field}${detail}`;
  } else if (error.value !== undefined) {
    detail = `Value ${String(error.value)}${detail}`;
  }
  return detail === '' ? 'ErrMessageMissing' : `${error.level}: ${detail}`;
}

/** True when the result has at least one finding of level Error. */
export function hasErrors(result: ManifestResult): boolean {
  return result.errors.some((e) => e.level === 'Error');
}

/** True when the result has at least one finding of level Warning. */
export function hasWarnings(result: ManifestResult): boolean {
  return result.errors.some((e) => e.level === 'Warning');
}

/** A mutable result builder. */
export function manifestResult(name: string, errors: ValidationError[] = []): ManifestResult {
  return { name, errors };
}
