import { goQuote } from './go-format.js';

/** Result of scanning one JSON value from a byte stream the way Go's `json.Decoder` does. */
export type ScanResult =
  /** Only whitespace remained: the stream is exhausted (`io.EOF`). */
  | { readonly kind: 'eof' }
  /** A complete value spans `[start, end)`. */
  | { readonly kind: 'value'; readonly start: number; readonly end: number }
  /** The stream ended inside a value (`io.ErrUnexpectedEOF`). */
  | { readonly kind: 'unexpected-eof' }
  /** A `*json.SyntaxError`: `message` is Go's text, `offset` its `Offset` (bytes read, offending byte included). */
  | { readonly kind: 'syntax'; readonly message: string; readonly offset: number };

/** encoding/json's `maxNestingDepth`: deeper arrays and objects are a syntax error. */
export const MAX_JSON_NESTING_DEPTH = 10_000;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** Go's `quoteChar` from encoding/json: the offending byte as it appears in scanner errors. */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  const q = goQuote(String.fromCharCode(c));
  return `'${q.slice(1, -1)}'`;
}

class SyntaxFailure {
  constructor(
    readonly message: string,
    readonly offset: number,
  ) {}
}

/**
 * Scans the next JSON value of `buf` starting at `pos`, with the exact error texts of Go's encoding/json scanner.
 * Offsets are absolute byte positions in `buf` (Go counts from the start of the decoder's stream).
 */
// Long on purpose: it mirrors Go's encoding/json scanner state by state (literals, strings, numbers, keys,
// nesting), each with Go's exact error text, and the closures share one cursor and one stack of open brackets.
export function scanJsonValue(buf: Uint8Array, pos: number): ScanResult {
  let i = pos;
  const n = buf.length;
  while (i < n && isSpace(buf[i]!)) i++;
  if (i >= n) return { kind: 'eof' };
  const start = i;
  const fail = (at: number, context: string): never => {
    throw new SyntaxFailure(`invalid character ${quoteChar(buf[at]!)} ${context}`, at + 1);
  };
  const eof = (): never => {
    throw new SyntaxFailure('', -1);
  };
  const skipSpace = (): void => {
    while (i < n && isSpace(buf[i]!)) i++;
    if (i >= n) eof();
  };
  const literal = (word: string, name: string): void => {
    for (let k = 1; k < word.length; k++) {
      if (i + k >= n) eof();
      if (buf[i + k] !== word.charCodeAt(k)) fail(i + k, `in literal ${name} (expecting '${word[k]}')`);
    }
    i += word.length;
  };
  const string = (): void => {
    i++; // opening quote
    for (;;) {
      if (i >= n) eof();
      const c = buf[i]!;
      if (c === 0x22) {
        i++;
        return;
      }
      if (c === 0x5c) {
        i++;
        if (i >= n) eof();
        const e = buf[i]!;
        if ('bfnrt\\/"'.includes(String.fromCharCode(e))) {
          i++;
          continue;
        }
        if (e !== 0x75) fail(i, 'in string escape code');
        for (let k = 1; k <= 4; k++) {
          if (i + k >= n) eof();
          if (!isHex(buf[i + k]!)) fail(i + k, 'in \\u hexadecimal character escape');
        }
        i += 5;
        continue;
      }
      if (c < 0x20) fail(i, 'in string literal');
      i++;
    }
  };
  /** Scans a number; returns with `i` on the first byte after it (which may be `n`). */
  const number = (): void => {
    if (buf[i] === 0x2d) {
      i++;
      if (i >= n) eof();
      if (!isDigit(buf[i]!)) fail(i, 'in numeric literal');
    }
    if (buf[i] === 0x30) i++;
    else while (i < n && isDigit(buf[i]!)) i++;
    if (i < n && buf[i] === 0x2e) {
      i++;
      if (i >= n) eof();
      if (!isDigit(buf[i]!)) fail(i, 'after decimal point in numeric literal');
      while (i < n && isDigit(buf[i]!)) i++;
    }
    if (i < n && (buf[i] === 0x65 || buf[i] === 0x45)) {
      i++;
      if (i < n && (buf[i] === 0x2b || buf[i] === 0x2d)) i++;
      if (i >= n) eof();
      if (!isDigit(buf[i]!)) fail(i, 'in exponent of numeric literal');
      while (i < n && isDigit(buf[i]!)) i++;
    }
  };
  const objectKey = (): void => {
    skipSpace();
    if (buf[i] !== 0x22) fail(i, 'looking for beginning of object key string');
    string();
    skipSpace();
    if (buf[i] !== 0x3a) fail(i, 'after object key');
    i++;
  };
  // The closing byte of every open array or object: a loop with its own stack, not recursion, so that nesting
  // is bounded by Go's limit rather than by the JavaScript stack.
  const open: number[] = [];
  const scan = (): void => {
    for (;;) {
      skipSpace();
      const c = buf[i]!;
      if (c === 0x7b || c === 0x5b) {
        if (open.length >= MAX_JSON_NESTING_DEPTH) fail(i, 'exceeded max depth');
        const close = c === 0x7b ? 0x7d : 0x5d;
        i++;
        skipSpace();
        if (buf[i] !== close) {
          open.push(close);
          if (close === 0x7d) objectKey();
          continue;
        }
        i++;
      } else if (c === 0x22) string();
      else if (c === 0x2d || isDigit(c)) {
        number();
        // A nested number must be followed by more input; a top-level one may end the stream.
        if (open.length > 0 && i >= n) eof();
      } else if (c === 0x74) literal('true', 'true');
      else if (c === 0x66) literal('false', 'false');
      else if (c === 0x6e) literal('null', 'null');
      else fail(i, 'looking for beginning of value');
      // A value is complete: close what ends here, or go on to the next element.
      for (;;) {
        const close = open.at(-1);
        if (close === undefined) return;
        skipSpace();
        const d = buf[i]!;
        if (d === 0x2c) {
          i++;
          if (close === 0x7d) objectKey();
          break;
        }
        if (d !== close) fail(i, close === 0x7d ? 'after object key:value pair' : 'after array element');
        i++;
        open.pop();
      }
    }
  };
  try {
    scan();
    return { kind: 'value', start, end: i };
  } catch (err) {
    if (!(err instanceof SyntaxFailure)) throw err;
    if (err.offset < 0) return { kind: 'unexpected-eof' };
    return { kind: 'syntax', message: err.message, offset: err.offset };
  }
}
