import { compareGoStrings } from '../bundle/go-json.js';

/** Go's `%q` of a string (`strconv.Quote`); with `ascii`, `%+q` (`strconv.QuoteToASCII`). */
export function goQuote(value: string, ascii = false): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    switch (char) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\x07':
        out += '\\a';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\v':
        out += '\\v';
        continue;
    }
    if (code < 0x20 || code === 0x7f) {
      out += `\\x${code.toString(16).padStart(2, '0')}`;
    } else if (code < 0x80) {
      out += char;
    } else if (ascii || !isPrintable(code)) {
      out +=
        code > 0xffff
          ? `\\U${code.toString(16).padStart(8, '0')}`
          : `\\u${code.toString(16).padStart(4, '0')}`;
    } else {
      out += char;
    }
  }
  return `${out}"`;
}

function isPrintable(code: number): boolean {
  return !/[\p{C}\p{Z}]/u.test(String.fromCodePoint(code)) || code === 0x20;
}

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
    const keys = Object.keys(value as Record<string, unknown>).sort(compareGoStrings);
    return `map[${keys.map((k) => `${k}:${goFormatV((value as Record<string, unknown>)[k])}`).join(' ')}]`;
  }
  return String(value);
}

/** `%v` of an int64 (integral values) or float64 (`strconv.FormatFloat(f, 'g', -1, 64)`). */
function goFloatV(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 2 ** 63) return BigInt(value).toString();
  const exp = value === 0 ? 0 : Math.floor(Math.log10(Math.abs(value)));
  if (exp < -4 || exp >= 21) {
    const [mantissa, e] = value.toExponential().split('e') as [string, string];
    const sign = e.startsWith('-') ? '-' : '+';
    const digits = e.replace(/^[+-]/, '').padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  return String(value);
}

/** Go's `%v` of an `*unstructured.Unstructured`: `&{map[...]}`. */
export function goFormatUnstructured(obj: unknown): string {
  return `&{${goFormatV(obj)}}`;
}
