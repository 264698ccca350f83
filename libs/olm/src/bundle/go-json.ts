import { byteOrder } from '../go-compat/go-format.js';
/**
 * JSON encoding with Go's `encoding/json` rules, so bytes derived from it (base64 `olm.bundle.object` data,
 * `alm-examples`) match what the upstream tools produce.
 */

/** How to encode. */
export interface GoJsonOptions {
  /**
   * Sort object keys, as Go does for maps (`map[string]interface{}`, i.e. unstructured objects). Off for
   * values built in Go struct field order.
   * @default true
   */
  readonly sortKeys?: boolean;
  /**
   * Escape `<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026` (`json.Marshal`); off for an encoder with
   * `SetEscapeHTML(false)`.
   * @default true
   */
  readonly escapeHtml?: boolean;
  /** Indentation per level (`json.MarshalIndent`); compact when absent. */
  readonly indent?: string;
}

const HEX = '0123456789abcdef';

/** JSON text emitted as is (Go's `json.RawMessage`); must be compact. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A JSON string literal the way Go writes it. */
export function goQuoteJson(value: string, escapeHtml = true): string {
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
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
    }
    if (code < 0x20 || (escapeHtml && (char === '<' || char === '>' || char === '&'))) {
      out += `\\u00${HEX[code >> 4]}${HEX[code & 0xf]}`;
    } else if (code === 0x2028 || code === 0x2029) {
      out += `\\u${code.toString(16)}`;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      // A lone surrogate is invalid UTF-8 in Go: replaced by U+FFFD.
      out += '\\ufffd';
    } else {
      out += char;
    }
  }
  return `${out}"`;
}

/** A number the way Go's encoding/json writes a float64 (integers without exponent below 1e21). */
function goNumber(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError(`json: unsupported value: ${value}`);
  if (Object.is(value, -0)) return '-0';
  return String(value);
}

/** Encodes `value` like Go's `json.Marshal` / `json.MarshalIndent`. `undefined` members are dropped. */
export function goJsonMarshal(value: unknown, options: GoJsonOptions = {}): string {
  const sortKeys = options.sortKeys ?? true;
  const escapeHtml = options.escapeHtml ?? true;
  const indent = options.indent;

  const encode = (v: unknown, depth: number): string => {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'string') return goQuoteJson(v, escapeHtml);
    if (typeof v === 'number') return goNumber(v);
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (v instanceof Date) return goQuoteJson(v.toISOString(), escapeHtml);
    if (v instanceof RawJson) return v.text;
    const newline = indent === undefined ? '' : `\n${indent.repeat(depth + 1)}`;
    const closing = indent === undefined ? '' : `\n${indent.repeat(depth)}`;
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      return `[${v.map((item) => newline + encode(item, depth + 1)).join(',')}${closing}]`;
    }
    if (typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>).filter(([, item]) => item !== undefined);
      if (sortKeys) entries.sort(([a], [b]) => byteOrder(a, b));
      if (entries.length === 0) return '{}';
      const colon = indent === undefined ? ':' : ': ';
      return `{${entries
        .map(([key, item]) => `${newline}${goQuoteJson(key, escapeHtml)}${colon}${encode(item, depth + 1)}`)
        .join(',')}${closing}}`;
    }
    throw new TypeError(`json: unsupported type: ${typeof v}`);
  };
  return encode(value, 0);
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
