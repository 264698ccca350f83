import { byteOrder } from './go-format.js';

/**
 * A JSON object whose keys must be written in insertion order (a Go struct). Plain objects are written with
 * sorted keys (a Go map), which is also how opm writes property values and unknown blobs after loading them.
 */
export type GoStruct = Map<string, unknown>;

/** A JSON string as Go's encoder writes it with HTML escaping off (U+2028 and U+2029 are still escaped). */
export function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
}

function goJsonNumber(n: number): string {
  if (!Number.isFinite(n)) throw new TypeError(`json: unsupported value: ${n}`);
  return Object.is(n, -0) ? '-0' : JSON.stringify(n);
}

function entriesOf(v: object): [string, unknown][] {
  if (v instanceof Map) return [...(v as GoStruct).entries()].filter(([, x]) => x !== undefined);
  const obj = v as Record<string, unknown>;
  return Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort(byteOrder)
    .map((k) => [k, obj[k]]);
}

/**
 * Encodes a value like Go's `json.Encoder` with `SetEscapeHTML(false)` and `SetIndent("", indent)` (no indent when
 * `indent` is empty). `undefined` values inside objects are omitted; `undefined` elsewhere encodes as `null`.
 */
export function encodeGoJson(value: unknown, indent = ''): string {
  const parts: string[] = [];
  const write = (v: unknown, depth: number): void => {
    if (v === null || v === undefined) {
      parts.push('null');
    } else if (typeof v === 'string') {
      parts.push(goJsonString(v));
    } else if (typeof v === 'number') {
      parts.push(goJsonNumber(v));
    } else if (typeof v === 'boolean') {
      parts.push(v ? 'true' : 'false');
    } else if (Array.isArray(v)) {
      if (v.length === 0) {
        parts.push('[]');
        return;
      }
      parts.push('[');
      v.forEach((e, i) => {
        if (i > 0) parts.push(',');
        if (indent) parts.push('\n', indent.repeat(depth + 1));
        write(e, depth + 1);
      });
      if (indent) parts.push('\n', indent.repeat(depth));
      parts.push(']');
    } else if (typeof v === 'object') {
      const entries = entriesOf(v);
      if (entries.length === 0) {
        parts.push('{}');
        return;
      }
      parts.push('{');
      entries.forEach(([k, e], i) => {
        if (i > 0) parts.push(',');
        if (indent) parts.push('\n', indent.repeat(depth + 1));
        parts.push(goJsonString(k), indent ? ': ' : ':');
        write(e, depth + 1);
      });
      if (indent) parts.push('\n', indent.repeat(depth));
      parts.push('}');
    } else {
      throw new TypeError(`json: unsupported type: ${typeof v}`);
    }
  };
  write(value, 0);
  return parts.join('');
}
