import { byteOrder, goFloat, sortInByteOrder } from '../go-compat/go-format.js';

export { byteOrder, goFloat, sortInByteOrder };

/**
 * Go `fmt` renderings of JSON-decoded values (`interface{}` holding float64, string, bool, nil,
 * `map[string]interface{}` or `[]interface{}`), used to reproduce opm messages that embed such values.
 */

/** Go's `%v` of a JSON-decoded value. */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'number') return goFloat(v);
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  const entries = Object.keys(v as object)
    .sort(byteOrder)
    .map((k) => `${k}:${goValue((v as Record<string, unknown>)[k])}`);
  return `map[${entries.join(' ')}]`;
}

/** The Go type name of a JSON-decoded value held in an `interface{}`. */
export function goTypeName(v: unknown): string {
  if (typeof v === 'number') return 'float64';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/**
 * Go's `%t` of a JSON-decoded value: `%!t(float64=5)` for a scalar that is not a bool; maps and slices are
 * printed element by element with the same verb.
 */
export function goBoolVerb(v: unknown, nested = false): string {
  if (typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return nested ? '<nil>' : '%!t(<nil>)';
  if (Array.isArray(v)) return `[${v.map((e) => goBoolVerb(e, true)).join(' ')}]`;
  if (typeof v === 'object') {
    const entries = Object.keys(v)
      .sort(byteOrder)
      .map((k) => `${goBoolVerb(k, true)}:${goBoolVerb((v as Record<string, unknown>)[k], true)}`);
    return `map[${entries.join(' ')}]`;
  }
  return `%!t(${goTypeName(v)}=${goValue(v)})`;
}

/** Go's `%v` of a string slice: `[a b c]`. */
export function goStringSlice(values: readonly string[]): string {
  return `[${values.join(' ')}]`;
}
