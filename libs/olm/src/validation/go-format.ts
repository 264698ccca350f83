import { byteOrder, goFloat, goQuote } from '../go-compat/go-format.js';

export { goQuote };

/** Go's `%q` / `%+q` of a string slice: `["a" "b"]`. */
export function goQuoteSlice(values: readonly string[], ascii = false): string {
  return `[${values.map((v) => goQuote(v, ascii)).join(' ')}]`;
}

/**
 * Go's `%v` of a decoded JSON value (`map[string]interface{}`, `[]interface{}`, strings, int64/float64, bool,
 * nil): `map[a:1 b:[x y]]`, maps with sorted keys.
 */
export function goFormatV(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return goFloatV(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(goFormatV).join(' ')}]`;
  if (typeof value === 'object') {
    const keys = Object.keys(value as Record<string, unknown>).sort(byteOrder);
    return `map[${keys.map((k) => `${k}:${goFormatV((value as Record<string, unknown>)[k])}`).join(' ')}]`;
  }
  return String(value);
}

/** `%v` of an int64 (the decoder keeps integral values as int64) or a float64. */
function goFloatV(value: number): string {
  return Number.isInteger(value) && Math.abs(value) < 2 ** 63 ? BigInt(value).toString() : goFloat(value);
}

/** Go's `%v` of an `*unstructured.Unstructured`: `&{map[...]}`. */
export function goFormatUnstructured(obj: unknown): string {
  return `&{${goFormatV(obj)}}`;
}
