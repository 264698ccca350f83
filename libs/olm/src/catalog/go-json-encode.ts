import { byteOrder } from './go-format.js';

/**
 * A JSON object whose keys must be written in insertion order (a Go struct). Plain objects are written with
 * sorted keys (a Go map), which is also how opm writes property values and unknown blobs after loading them.
 */
export type GoStruct = Map<string, unknown>;

/** Characters JSON.stringify escapes in a string, and U+2028 and U+2029, which only Go escapes. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON.stringify escapes.
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\u2028\u2029\ud800-\udfff]/;
const LINE_SEPARATOR = /[\u2028\u2029]/;
const LINE_SEPARATORS = new RegExp(LINE_SEPARATOR.source, 'g');

/** A JSON string as Go's encoder writes it with HTML escaping off (U+2028 and U+2029 are still escaped). */
export function goJsonString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  return escapeLineSeparators(JSON.stringify(s));
}

/** Go escapes U+2028 and U+2029, JSON.stringify does not; JSON text has them only inside strings. */
function escapeLineSeparators(json: string): string {
  if (!LINE_SEPARATOR.test(json)) return json;
  return json.replace(LINE_SEPARATORS, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
}

function goJsonNumber(n: number): string {
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
 * Encodes a value like Go's `json.Encoder` with `SetEscapeHTML(false)` and `SetIndent("", indent)` (no indent when
 * `indent` is empty). `undefined` values inside objects are omitted; `undefined` elsewhere encodes as `null`.
 */
export function encodeGoJson(value: unknown, indent = ''): string {
  // V8's own JSON.stringify writes the same bytes as Go for most documents, flat and many times faster than
  // any encoder in JavaScript; the encoder below is for the rest.
  const plain = stringifyReady(value);
  if (plain !== undefined && indent.length <= MAX_STRINGIFY_INDENT) {
    return escapeLineSeparators(JSON.stringify(plain, null, indent));
  }
  return encodeGoJsonByWalk(value, indent);
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
 * `value` in a form JSON.stringify writes exactly as Go's encoder does — every Go struct (a Map) turned into an
 * object with its defined fields in order — or `undefined` when it cannot: a map whose keys are not already in
 * Go's order or start with a digit, a number Go spells differently (-0) or refuses (NaN, Infinity), anything
 * but plain objects, arrays, Maps, strings, numbers, booleans, null and undefined. Parts without a Map are
 * returned as they are, not copied.
 */
function stringifyReady(value: unknown): unknown {
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
    let copy: Record<string, unknown> | undefined;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      if (unorderable(k) || (i > 0 && byteOrder(keys[i - 1]!, k) >= 0)) return NOT_READY;
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

/** {@link encodeGoJson} for every value: Go's rules, one node at a time. */
export function encodeGoJsonByWalk(value: unknown, indent = ''): string {
  const newlines: string[] = [];
  /** A line break and the indentation of `depth`, made once per depth. */
  const newline = (depth: number): string => {
    newlines[depth] ??= `\n${indent.repeat(depth)}`;
    return newlines[depth];
  };
  const colon = indent ? ': ' : ':';
  const write = (v: unknown, depth: number): string => {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'string') return goJsonString(v);
    if (typeof v === 'number') return goJsonNumber(v);
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v !== 'object') throw new TypeError(`json: unsupported type: ${typeof v}`);
    const inner = indent ? newline(depth + 1) : '';
    const close = indent ? newline(depth) : '';
    let out = '';
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      for (let i = 0; i < v.length; i++) out += `${i > 0 ? ',' : '['}${inner}${write(v[i], depth + 1)}`;
      return `${out}${close}]`;
    }
    let first = true;
    if (v instanceof Map) {
      for (const [k, e] of v as GoStruct) {
        if (e === undefined) continue;
        out += `${first ? '{' : ','}${inner}${goJsonString(k)}${colon}${write(e, depth + 1)}`;
        first = false;
      }
    } else {
      const obj = v as Record<string, unknown>;
      for (const k of sortedKeys(obj)) {
        out += `${first ? '{' : ','}${inner}${goJsonString(k)}${colon}${write(obj[k], depth + 1)}`;
        first = false;
      }
    }
    return first ? '{}' : `${out}${close}}`;
  };
  return write(value, 0);
}
