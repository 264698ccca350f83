/**
 * Go `fmt` renderings of JSON-decoded values (`interface{}` holding float64, string, bool, nil,
 * `map[string]interface{}` or `[]interface{}`), used to reproduce opm messages that embed such values.
 */

/** Go's `%v` of a float64: shortest `%g`, exponent form below 1e-4 and from 1e+06 on. */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mantissa, expStr] = Math.abs(f).toExponential().split('e') as [string, string];
  const exp = Number(expStr);
  const sign = f < 0 ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const e = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : String(Math.abs(exp));
    return `${sign}${mantissa}e${exp < 0 ? '-' : '+'}${e}`;
  }
  const digits = mantissa.replace('.', '');
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

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

/** Sorts strings by UTF-16 code units, which equals Go's byte order for the BMP. */
export function byteOrder(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
