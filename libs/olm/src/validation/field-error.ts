import { goQuote } from '../go-compat/go-format.js';
import { goJsonMarshal } from '../go-compat/go-json.js';
import { newError, type ValidationError } from './result.js';

/**
 * A Kubernetes `field.Error` (apimachinery `pkg/util/validation/field`): the findings of the CRD and object
 * metadata checks, which operator-framework/api passes on with the Kubernetes type and full message.
 */
export interface FieldError {
  /** `FieldValueRequired`, `FieldValueInvalid`, `FieldValueNotSupported`, `FieldValueForbidden`, … */
  readonly type: string;
  readonly field: string;
  /** The bad value as the Kubernetes message shows it (`"x"`, `3`, JSON); absent when omitted. */
  readonly shown?: string;
  /** The bad value as Go's `%v` prints it. */
  readonly goValue: string;
  readonly detail: string;
}

const TYPE_TEXT: Record<string, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueTooFew: 'Too few',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueTooShort: 'Too short',
};

/** A scalar or structured bad value. */
export type FieldValue = string | number | boolean | { readonly json: unknown; readonly goValue: string };

function show(value: FieldValue): { shown: string; goValue: string } {
  if (typeof value === 'string') return { shown: goQuote(value), goValue: value };
  if (typeof value === 'number' || typeof value === 'boolean')
    return { shown: String(value), goValue: String(value) };
  return { shown: goJsonMarshal(value.json), goValue: value.goValue };
}

/** `field.Invalid`. */
export function fieldInvalid(field: string, value: FieldValue, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail, ...show(value) };
}

/** `field.Required` (BadValue `""`). */
export function fieldRequired(field: string, detail: string): FieldError {
  return { type: 'FieldValueRequired', field, detail, goValue: '' };
}

/** `field.Forbidden` (BadValue `""`). */
export function fieldForbidden(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, detail, goValue: '' };
}

/** `field.NotSupported`: detail `supported values: "a", "b"`. */
export function fieldNotSupported(field: string, value: FieldValue, valid: readonly string[]): FieldError {
  const detail = valid.length > 0 ? `supported values: ${valid.map((v) => goQuote(v)).join(', ')}` : '';
  return { type: 'FieldValueNotSupported', field, detail, ...show(value) };
}

/** `field.Error.Error()`: `<field>: <Type text>[: <value>][: <detail>]`. */
export function formatFieldError(error: FieldError): string {
  const text = TYPE_TEXT[error.type] ?? `<unknown error "${error.type}">`;
  let body = text;
  if (
    error.shown !== undefined &&
    ![
      'FieldValueRequired',
      'FieldValueForbidden',
      'FieldValueTooLong',
      'FieldValueTooShort',
      'InternalError',
    ].includes(error.type)
  ) {
    body = `${text}: ${error.shown}`;
  }
  if (error.detail.length > 0) body += `: ${error.detail}`;
  return `${error.field}: ${body}`;
}

/** `ErrorList.ToAggregate().Error()`: one message, or `[m1, m2]` (duplicates removed). */
export function aggregateFieldErrors(errors: readonly FieldError[]): string {
  const messages = [...new Set(errors.map(formatFieldError))];
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}

/** How operator-framework/api wraps a Kubernetes field error: `errors.NewError(type, err.Error(), field, badValue)`. */
export function toValidationError(error: FieldError): ValidationError {
  return newError(error.type, formatFieldError(error), error.field, error.goValue);
}
