import { byteOrder } from './go-format.js';

/**
 * A JSON object whose keys must be written in insertion order (a Go struct). Plain objects are written with
 * sorted keys (a Go map), which is also how opm writes property values and unknown blobs after loading them.
 */
export type GoStruct = Map<string, unknown>;

/** A JSON string as Go's encoder writes it with HTML escaping off (U+2028 and U+2029 are still escaped). */
export function goJsonString(s: string): string {
  const json = JSON.stringify(s);
  if (!json.includes('\u2028') && !json.includes('\u2029')) return json;
  return json.replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
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
