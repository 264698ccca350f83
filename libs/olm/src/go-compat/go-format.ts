// The details of Go's own formatting that opkit's output must match byte for byte: `%q` quoting, `%v` and `%t`
// of the values Go's decoders produce, and the order Go sorts strings in. One implementation of each, for every
// message and file written.

const NAMED_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

/** Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space. */
function isPrintable(char: string): boolean {
  return char === ' ' || !/[\p{C}\p{Z}]/u.test(char);
}

/**
 * Go's `%q` of a string (`strconv.Quote`); with `ascii`, `%+q` (`strconv.QuoteToASCII`). A lone surrogate,
 * which Go's decoders turn into U+FFFD, is quoted as that character.
 */
export function goQuote(value: string, ascii = false): string {
  let out = '"';
  for (const raw of value) {
    const named = NAMED_ESCAPES[raw];
    if (named !== undefined) {
      out += named;
      continue;
    }
    const code = raw.codePointAt(0) ?? 0;
    const char = code >= 0xd800 && code <= 0xdfff ? '\ufffd' : raw;
    const cp = char.codePointAt(0) ?? 0;
    if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x80) out += char;
    else if (ascii || !isPrintable(char))
      out +=
        cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

/** Go's `%v` of a float64 (`strconv.FormatFloat(f, 'g', -1, 64)`): exponent form below 1e-4 and from 1e+06 on. */
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

/** Go's `%q` / `%+q` of a string slice: `["a" "b"]`. */
export function goQuoteSlice(values: readonly string[], ascii = false): string {
  return `[${values.map((v) => goQuote(v, ascii)).join(' ')}]`;
}

/** Go's `%v` of a string slice: `[a b c]`. */
export function goStringSlice(values: readonly string[]): string {
  return `[${values.join(' ')}]`;
}

/**
 * Go's `%v` of an int64 (`strconv.FormatInt`): every digit, never an exponent. Beyond int64 Go's decoders keep
 * a float64, written as {@link goFloat}.
 */
function goInt64OrFloat(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 2 ** 63 ? BigInt(n).toString() : goFloat(n);
}

/** `%v` of a decoded JSON tree (maps with sorted keys, slices, strings, bools, nil), numbers by `number`. */
function goDecodedValue(value: unknown, number: (n: number) => string): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return number(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map((e) => goDecodedValue(e, number)).join(' ')}]`;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const entries = Object.keys(record)
      .sort(byteOrder)
      .map((k) => `${k}:${goDecodedValue(record[k], number)}`);
    return `map[${entries.join(' ')}]`;
  }
  return String(value);
}

/**
 * Go's `%v` of what `encoding/json` decodes into an `interface{}` (`map[string]interface{}`, `[]interface{}`,
 * string, bool, nil, and every number a float64): `map[a:1e+06 b:[x true]]`. opm decodes catalog blobs so.
 */
export function goFormatJsonInterface(value: unknown): string {
  return goDecodedValue(value, goFloat);
}

/**
 * Go's `%v` of an unstructured object's content, as Kubernetes' apimachinery decodes JSON and YAML: a number
 * that parses as an integer becomes an int64 (`1000000`), any other a float64 (`1.5`). JavaScript keeps no trace
 * of how a number was written, so every integral value is taken for an int64 (Go prints a written `1e6`, a
 * float64, as `1e+06`).
 */
export function goFormatUnstructuredContent(value: unknown): string {
  return goDecodedValue(value, goInt64OrFloat);
}

/** Go's `%v` of an `*unstructured.Unstructured`: `&{map[...]}`. */
export function goFormatUnstructured(obj: unknown): string {
  return `&{${goFormatUnstructuredContent(obj)}}`;
}

/** The Go type name of what `encoding/json` decodes into an `interface{}`. */
export function goJsonInterfaceTypeName(v: unknown): string {
  if (typeof v === 'number') return 'float64';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/**
 * Go's `%t` of what `encoding/json` decodes into an `interface{}`: `%!t(float64=5)` for a scalar that is not a
 * bool; maps and slices are printed element by element with the same verb.
 */
export function goBoolVerbOfJsonInterface(v: unknown, nested = false): string {
  if (typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return nested ? '<nil>' : '%!t(<nil>)';
  if (Array.isArray(v)) return `[${v.map((e) => goBoolVerbOfJsonInterface(e, true)).join(' ')}]`;
  if (typeof v === 'object') {
    const record = v as Record<string, unknown>;
    const entries = Object.keys(record)
      .sort(byteOrder)
      .map((k) => `${goBoolVerbOfJsonInterface(k, true)}:${goBoolVerbOfJsonInterface(record[k], true)}`);
    return `map[${entries.join(' ')}]`;
  }
  return `%!t(${goJsonInterfaceTypeName(v)}=${goFormatJsonInterface(v)})`;
}

/**
 * A UTF-16 code unit moved so that units compare in code point order: surrogates (U+10000 and up) after
 * U+E000–U+FFFF, which comes after them in UTF-16.
 */
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  return unit >= 0xe000 ? unit - 0x800 : unit;
}

/**
 * Go's string order: by UTF-8 bytes, which is code point order. JavaScript's `<` compares UTF-16 code units
 * and disagrees for characters above U+FFFF against U+E000–U+FFFF.
 */
export function byteOrder(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  let i = 0;
  while (i < length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === length) return a.length < b.length ? -1 : 1;
  return codePointRank(a.charCodeAt(i)) < codePointRank(b.charCodeAt(i)) ? -1 : 1;
}

/** Whether no string holds a UTF-16 unit from U+D800 up, where JavaScript's string order is Go's. */
function belowSurrogates(strings: readonly string[]): boolean {
  for (const s of strings) {
    for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0xd800) return false;
  }
  return true;
}

/** Whether every string comes strictly after the one before it in Go's order, so sorting would change nothing. */
function strictlyAscending(strings: readonly string[]): boolean {
  for (let i = 1; i < strings.length; i++) {
    if (byteOrder(strings[i - 1] as string, strings[i] as string) >= 0) return false;
  }
  return true;
}

/**
 * Sorts strings in place in Go's order ({@link byteOrder}). Keys of documents opm wrote come sorted already and
 * are only checked, pair by pair; elsewhere, where JavaScript's own order agrees, the sort runs without a
 * comparator, which is several times faster on the thousands of names of a catalog.
 */
export function sortInByteOrder(strings: string[]): string[] {
  if (strictlyAscending(strings)) return strings;
  return belowSurrogates(strings) ? strings.sort() : strings.sort(byteOrder);
}
