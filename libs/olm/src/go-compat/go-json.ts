import { byteOrder } from './go-format.js';

// JSON as Go's encoding/json writes it: one string quoter, one number format, one encoder (json.Marshal and
// json.Encoder alike, their differences as options) and json.Indent / json.Compact over JSON text. Catalog
// files, `olm.bundle.object` data, `alm-examples` and the validators' messages all come from here, so they
// match what opm and operator-sdk write byte for byte.

/**
 * A JSON object whose keys are written in insertion order (a Go struct). Plain objects are Go maps, written
 * with sorted keys, unless {@link GoJsonOptions.sortKeys} is off.
 */
export type GoStruct = Map<string, unknown>;

/**
 * Marks a plain object as a Go struct: its fields are written in the order they were added, `undefined` ones
 * left out, as for a {@link GoStruct}. Cheaper to build than a Map and written by JSON.stringify as it is, which
 * matters for the thousands of documents of a catalog. Field names must not look like integers (JavaScript
 * puts those first).
 */
export const GO_STRUCT: unique symbol = Symbol('go struct');

/** A plain object marked with {@link GO_STRUCT}. */
export interface GoStructObject {
  readonly [GO_STRUCT]: true;
  readonly [field: string]: unknown;
}

const isStructObject = (v: object): v is GoStructObject => (v as Partial<GoStructObject>)[GO_STRUCT] === true;

/** JSON text written as is (Go's `json.RawMessage`); must be compact. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** How to encode. */
export interface GoJsonOptions {
  /**
   * Sort the keys of plain objects, as Go does for maps (`map[string]interface{}`, i.e. unstructured objects).
   * Off for plain objects built in Go struct field order.
   * @default true
   */
  readonly sortKeys?: boolean;
  /**
   * Escape `<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026`, as `json.Marshal` does; off for a `json.Encoder`
   * with `SetEscapeHTML(false)` (opm's catalog writer).
   * @default true
   */
  readonly escapeHtml?: boolean;
  /** Indentation per level (`json.MarshalIndent`, `Encoder.SetIndent`); compact when absent or empty. */
  readonly indent?: string;
}

/** Characters JSON.stringify escapes in a string, and those it writes otherwise than Go (see {@link goJsonText}). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON.stringify escapes.
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\u2028\u2029\ud800-\udfff]/;
const HTML_CHARACTERS = /[<>&]/;

/**
 * Where JSON text from JSON.stringify differs from Go's: U+2028 and U+2029, which Go escapes and JSON.stringify
 * does not, and the escape of a lone surrogate (`\ud800`). A lone surrogate comes from such an escape in the
 * input, which Go's decoders turn into U+FFFD, so Go writes U+FFFD. With HTML escaping, also `<`, `>` and `&`.
 * JSON text holds these characters only inside strings; a `\u` escape counts when an odd run of backslashes
 * leads it.
 */
const STRINGIFY_DIFFERENCES = /[\u2028\u2029]|(\\+)ud[89a-f][0-9a-f]{2}/g;
const STRINGIFY_DIFFERENCES_HTML = /[\u2028\u2029<>&]|(\\+)ud[89a-f][0-9a-f]{2}/g;
const LINE_SEPARATOR = /[\u2028\u2029]/;

/**
 * Whether {@link STRINGIFY_DIFFERENCES} may occur in `json`: a character class alone and `includes` scan a
 * catalog's megabytes of text in well under a millisecond, where one regular expression with both takes many
 * times longer.
 */
function mayDifferFromGo(json: string, escapeHtml: boolean): boolean {
  if (LINE_SEPARATOR.test(json) || json.includes('\\ud')) return true;
  return escapeHtml && (json.includes('<') || json.includes('>') || json.includes('&'));
}

const GO_ESCAPES: Readonly<Record<string, string>> = {
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
};

/** JSON text from JSON.stringify as Go writes it. */
function goJsonText(json: string, escapeHtml: boolean): string {
  if (!mayDifferFromGo(json, escapeHtml)) return json;
  return json.replace(
    escapeHtml ? STRINGIFY_DIFFERENCES_HTML : STRINGIFY_DIFFERENCES,
    (found: string, backslashes: string | undefined) => {
      if (backslashes === undefined) return GO_ESCAPES[found] ?? found;
      return backslashes.length % 2 === 1 ? `${backslashes.slice(1)}\ufffd` : found;
    },
  );
}

/** A JSON string as Go's encoder writes it; `escapeHtml` as in {@link GoJsonOptions}. */
export function goJsonString(s: string, escapeHtml = true): string {
  if (!NEEDS_ESCAPE.test(s) && !(escapeHtml && HTML_CHARACTERS.test(s))) return `"${s}"`;
  return goJsonText(JSON.stringify(s), escapeHtml);
}

/**
 * A float64 as Go's encoder writes it: JavaScript's shortest form, which like Go's switches to an exponent only
 * below 1e-6 and from 1e21 on; `-0` keeps its sign. NaN and the infinities are refused, as Go refuses them.
 */
export function goJsonNumber(n: number): string {
  if (!Number.isFinite(n)) throw new TypeError(`json: unsupported value: ${n}`);
  return Object.is(n, -0) ? '-0' : JSON.stringify(n);
}

/** The keys of a Go map in the order Go writes them (sorted by bytes), without `undefined` members. */
function sortedKeys(obj: Record<string, unknown>): string[] {
  const keys = Object.keys(obj);
  let sorted = true;
  let defined = true;
  for (let i = 0; i < keys.length; i++) {
    if (obj[keys[i]!] === undefined) defined = false;
    if (i > 0 && byteOrder(keys[i - 1]!, keys[i]!) > 0) sorted = false;
  }
  // Documents written by opm already have their keys in order: most objects need no sort at all.
  const present = defined ? keys : keys.filter((k) => obj[k] !== undefined);
  return sorted ? present : present.sort(byteOrder);
}

/**
 * Encodes `value` like Go's `json.Marshal` / `json.MarshalIndent`, or, with `escapeHtml` off, a `json.Encoder`
 * with `SetEscapeHTML(false)` (without the newline the encoder ends each value with). `undefined` members are
 * left out; `undefined` elsewhere encodes as `null`.
 */
export function goJsonMarshal(value: unknown, options: GoJsonOptions = {}): string {
  // V8's own JSON.stringify writes the same bytes as Go for most documents, flat and many times faster than
  // any encoder in JavaScript; the encoder below is for the rest.
  const indent = options.indent ?? '';
  const plain = stringifyReady(value, options.sortKeys ?? true);
  if (plain !== undefined && indent.length <= MAX_STRINGIFY_INDENT) {
    return goJsonText(JSON.stringify(plain, null, indent), options.escapeHtml ?? true);
  }
  return goJsonMarshalByWalk(value, options);
}

/** JSON.stringify takes at most 10 characters of indentation. */
const MAX_STRINGIFY_INDENT = 10;

/**
 * Keys an object cannot hold in the order they were added: integer-like keys come first in numeric order (Go
 * sorts them as strings), and `__proto__` set on an object is no key at all.
 */
const unorderable = (key: string): boolean => {
  const c = key.charCodeAt(0);
  return (c >= 0x30 && c <= 0x39) || key === '__proto__';
};

/** What {@link stringifyReady} finds in a part JSON.stringify would not write as Go does. */
const NOT_READY = Symbol('not ready');

/**
 * `value` in a form JSON.stringify writes as Go's encoder does, up to what {@link goJsonText} mends: every Go
 * struct (a Map) turned into an object with its defined fields in order. `undefined` when it cannot be: a map
 * whose keys are not already in Go's order (when keys are sorted) or start with a digit, a number Go spells
 * differently (-0) or refuses (NaN, Infinity), anything but plain objects, arrays, Maps, strings, numbers,
 * booleans, null and undefined. Parts without a Map are returned as they are, not copied.
 */
function stringifyReady(value: unknown, sortKeys: boolean): unknown {
  if (value === null || typeof value !== 'object') return undefined;
  // Long on purpose: one pass over the tree that both checks and converts, so large documents are walked once.
  const ready = (v: unknown): unknown => {
    switch (typeof v) {
      case 'string':
      case 'boolean':
      case 'undefined':
        return v;
      case 'number':
        return Number.isFinite(v) && !Object.is(v, -0) ? v : NOT_READY;
      case 'object':
        break;
      default:
        return NOT_READY;
    }
    if (v === null) return v;
    if (Array.isArray(v)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const e: unknown = v[i];
        const r = ready(e);
        if (r === NOT_READY) return NOT_READY;
        if (r !== e) {
          copy ??= v.slice(0, i);
          copy[i] = r;
        } else if (copy !== undefined) copy[i] = e;
      }
      return copy ?? v;
    }
    if (v instanceof Map) {
      const out: Record<string, unknown> = {};
      for (const [k, e] of v as GoStruct) {
        if (e === undefined) continue;
        if (unorderable(k)) return NOT_READY;
        const r = ready(e);
        if (r === NOT_READY) return NOT_READY;
        out[k] = r;
      }
      return out;
    }
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return NOT_READY;
    const obj = v as Record<string, unknown>;
    const keys = Object.keys(obj);
    // A struct's fields stay in the order they were added; a map's keys must already be in Go's.
    const struct = isStructObject(obj);
    let copy: Record<string, unknown> | undefined;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      if (unorderable(k) || (sortKeys && !struct && i > 0 && byteOrder(keys[i - 1]!, k) >= 0)) {
        return NOT_READY;
      }
      const e = obj[k];
      const r = ready(e);
      if (r === NOT_READY) return NOT_READY;
      if (r !== e && copy === undefined) {
        copy = {};
        for (let j = 0; j < i; j++) copy[keys[j]!] = obj[keys[j]!];
      }
      if (copy !== undefined) copy[k] = r;
    }
    return copy ?? v;
  };
  const r = ready(value);
  return r === NOT_READY ? undefined : r;
}

/** {@link goJsonMarshal} for every value: Go's rules, one node at a time. */
export function goJsonMarshalByWalk(value: unknown, options: GoJsonOptions = {}): string {
  const indent = options.indent ?? '';
  const escapeHtml = options.escapeHtml ?? true;
  const keysOf = (options.sortKeys ?? true) ? sortedKeys : definedKeys;
  const newlines: string[] = [];
  /** A line break and the indentation of `depth`, made once per depth. */
  const newline = (depth: number): string => {
    newlines[depth] ??= `\n${indent.repeat(depth)}`;
    return newlines[depth];
  };
  const colon = indent ? ': ' : ':';
  const write = (v: unknown, depth: number): string => {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'string') return goJsonString(v, escapeHtml);
    if (typeof v === 'number') return goJsonNumber(v);
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v !== 'object') throw new TypeError(`json: unsupported type: ${typeof v}`);
    if (v instanceof RawJson) return v.text;
    if (v instanceof Date) return goJsonString(v.toISOString(), escapeHtml);
    const inner = indent ? newline(depth + 1) : '';
    const close = indent ? newline(depth) : '';
    let out = '';
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      for (let i = 0; i < v.length; i++) out += `${i > 0 ? ',' : '['}${inner}${write(v[i], depth + 1)}`;
      return `${out}${close}]`;
    }
    let first = true;
    const member = (k: string, e: unknown): void => {
      out += `${first ? '{' : ','}${inner}${goJsonString(k, escapeHtml)}${colon}${write(e, depth + 1)}`;
      first = false;
    };
    if (v instanceof Map) {
      for (const [k, e] of v as GoStruct) if (e !== undefined) member(k, e);
    } else if (isStructObject(v)) {
      for (const k of definedKeys(v)) member(k, v[k]);
    } else {
      const obj = v as Record<string, unknown>;
      for (const k of keysOf(obj)) member(k, obj[k]);
    }
    return first ? '{}' : `${out}${close}}`;
  };
  return write(value, 0);
}

/** The keys of a plain object written as a Go struct: in the order they were added, without `undefined` members. */
function definedKeys(obj: Record<string, unknown>): string[] {
  return Object.keys(obj).filter((k) => obj[k] !== undefined);
}

/**
 * Go's `json.Indent(dst, src, "", indent)`: re-indents JSON text without touching string contents; empty
 * objects and arrays stay `{}` / `[]`.
 */
export function goIndentJson(text: string, indent: string): string {
  let out = '';
  let depth = 0;
  let inString = false;
  let escaped = false;
  const newline = () => `\n${indent.repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') continue;
    if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '{' || c === '[') {
      let j = i + 1;
      while (j < text.length && ' \t\n\r'.includes(text[j]!)) j++;
      if (text[j] === (c === '{' ? '}' : ']')) {
        out += c === '{' ? '{}' : '[]';
        i = j;
        continue;
      }
      depth++;
      out += c + newline();
    } else if (c === '}' || c === ']') {
      depth--;
      out += newline() + c;
    } else if (c === ',') {
      out += `,${newline()}`;
    } else if (c === ':') {
      out += ': ';
    } else {
      out += c;
    }
  }
  return out;
}

/** Go's `json.Compact`: JSON text without insignificant whitespace. */
export function goCompactJson(text: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  for (const c of text) {
    if (inString) {
      out += c;
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (!' \t\n\r'.includes(c)) {
      out += c;
    }
  }
  return out;
}

/**
 * The raw, compacted JSON text of `member` in each element of a top-level JSON array of objects (what Go keeps
 * in a `json.RawMessage` field). Assumes valid JSON.
 */
// Long on purpose: a small JSON walker whose closures share one cursor over the text; it is just over the limit
// and reads top to bottom as the grammar it skips.
export function rawArrayMembers(text: string, member: string): (string | undefined)[] {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const skipValue = (): void => {
    ws();
    const c = text[i];
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
    } else if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      ws();
      if (text[i] === close) {
        i++;
        return;
      }
      for (;;) {
        if (c === '{') {
          skipValue();
          ws();
          i++; // ':'
        }
        skipValue();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        i++; // close
        return;
      }
    } else {
      while (i < text.length && !',]} \t\n\r'.includes(text[i]!)) i++;
    }
  };
  const compact = goCompactJson;
  const out: (string | undefined)[] = [];
  ws();
  if (text[i] !== '[') return out;
  i++;
  ws();
  if (text[i] === ']') return out;
  for (;;) {
    ws();
    let found: string | undefined;
    if (text[i] === '{') {
      i++;
      ws();
      while (text[i] !== '}') {
        ws();
        const keyStart = i;
        skipValue();
        const key = JSON.parse(text.slice(keyStart, i)) as string;
        ws();
        i++; // ':'
        ws();
        const start = i;
        skipValue();
        if (key.toLowerCase() === member.toLowerCase()) found = compact(text.slice(start, i));
        ws();
        if (text[i] === ',') i++;
        ws();
      }
      i++;
    } else {
      skipValue();
    }
    out.push(found);
    ws();
    if (text[i] === ',') {
      i++;
      continue;
    }
    break;
  }
  return out;
}
