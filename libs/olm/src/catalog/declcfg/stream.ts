import { Buffer, isAscii } from 'node:buffer';
import { goJsonMarshal } from '../../go-compat/go-json.js';
import type { GoType } from '../../go-compat/go-json-decode.js';
import { MAX_JSON_NESTING_DEPTH, type ScanResult, scanJsonValue } from '../../go-compat/go-json-scan.js';
import { YamlConversionError, yamlDocumentToJson } from '../../go-compat/yaml-json.js';
import { yamlDocuments } from '../../go-compat/yaml-stream.js';
import { type Meta, MetaError, toMeta } from './meta.js';

/** The documents decoded from one file, and the error that stopped decoding (opm aborts the load on it). */
export interface DecodedStream {
  readonly metas: Meta[];
  readonly error?: string;
}

const decoder = new TextDecoder();
const SNIFF_BYTES = 4096;
const YAML_PREFIX = 'error unmarshaling JSON: while decoding JSON: ';

/** Whether the first non-whitespace character within the first 4096 bytes is `{` (apimachinery's JSON sniff). */
function looksLikeJson(bytes: Uint8Array): boolean {
  const head = decoder.decode(bytes.subarray(0, SNIFF_BYTES));
  return head.trimStart().startsWith('{');
}

function decodeYaml(text: string, metas: Meta[]): string | undefined {
  for (const item of yamlDocuments(text)) {
    if ('error' in item) return item.error;
    try {
      const value = yamlDocumentToJson(item.text);
      metas.push(toMeta(value, () => goJsonMarshal(value, { escapeHtml: false })));
    } catch (err) {
      if (err instanceof YamlConversionError) return err.message;
      if (err instanceof MetaError) return YAML_PREFIX + err.message;
      throw err;
    }
  }
  return undefined;
}

/** Go's `consumeWhitespace`: skip whitespace up to and including the first newline. */
function skipToNextLine(bytes: Uint8Array, pos: number): number {
  let i = pos;
  while (i < bytes.length) {
    const c = bytes[i]!;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a && c !== 0x0b && c !== 0x0c) return i;
    i++;
    if (c === 0x0a) return i;
  }
  return i;
}

/** A top-level JSON object found without the scanner, and its place in the text. */
interface LaidOutObject {
  readonly value: unknown;
  readonly start: number;
  readonly end: number;
}

/** No object this short can nest deeper than Go allows: each level takes an opening and a closing bracket. */
const MAX_UNSCANNED_LENGTH = 2 * MAX_JSON_NESTING_DEPTH;

const isJsonSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;

/**
 * The object at `pos` (after whitespace) of a JSON stream laid out as opm writes catalogs, each top-level object
 * closed by a `}` at the start of a line: the text up to the first such `}` is that object exactly when
 * JSON.parse accepts it, as JSON.parse and Go's scanner accept the same values. One native parse instead of the
 * scanner's walk over every byte; `undefined` whenever that does not hold, and the scanner decides.
 */
function laidOutObject(text: string, pos: number): LaidOutObject | undefined {
  let start = pos;
  while (start < text.length && isJsonSpace(text.charCodeAt(start))) start++;
  if (text.charCodeAt(start) !== 0x7b) return undefined;
  const close = text.indexOf('\n}', start);
  if (close < 0 || close + 2 - start > MAX_UNSCANNED_LENGTH) return undefined;
  const end = close + 2;
  try {
    return { value: JSON.parse(text.slice(start, end)), start, end };
  } catch {
    return undefined;
  }
}

/**
 * Decodes a file of the catalog the way opm's loader does (apimachinery `YAMLOrJSONDecoder`): a file whose
 * content starts with `{` is read as a stream of JSON values; when a value fails and at most one value was read,
 * decoding restarts as YAML from that point and the JSON error is reported only if YAML fails too. Any other file
 * is a stream of YAML documents. Each document becomes a {@link Meta}.
 */
export function decodeCatalogStream(bytes: Uint8Array): DecodedStream {
  return decodeStream(bytes, true);
}

/** {@link decodeCatalogStream} with Go's scanner finding every JSON value, whatever the layout. */
export function decodeCatalogStreamByScanning(bytes: Uint8Array): DecodedStream {
  return decodeStream(bytes, false);
}

function decodeStream(bytes: Uint8Array, readLaidOut: boolean): DecodedStream {
  const metas: Meta[] = [];
  if (!looksLikeJson(bytes)) {
    const error = decodeYaml(decoder.decode(bytes), metas);
    return error === undefined ? { metas } : { metas, error };
  }
  let pos = 0;
  let count = 0;
  // For pure-ASCII content byte offsets are string offsets: decode once and slice. ASCII decodes alike in
  // every encoding, and a one-byte string is the cheapest to make of it.
  const ascii = isAscii(bytes);
  const whole = ascii ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1') : '';
  for (;;) {
    const laidOut = readLaidOut && ascii ? laidOutObject(whole, pos) : undefined;
    const scan: ScanResult =
      laidOut === undefined
        ? scanJsonValue(bytes, pos)
        : { kind: 'value', start: laidOut.start, end: laidOut.end };
    if (scan.kind === 'eof') return { metas };
    let firstError: string;
    let rawError: string;
    if (scan.kind === 'value') {
      const text = ascii
        ? whole.slice(scan.start, scan.end)
        : decoder.decode(bytes.subarray(scan.start, scan.end));
      try {
        metas.push(toMeta(laidOut === undefined ? JSON.parse(text) : laidOut.value, text));
        count++;
        pos = scan.end;
        continue;
      } catch (err) {
        if (!(err instanceof MetaError)) throw err;
        firstError = err.message;
        rawError = err.message;
      }
    } else if (scan.kind === 'unexpected-eof') {
      firstError = 'unexpected EOF';
      rawError = firstError;
    } else {
      firstError = `json: offset ${scan.offset}: ${scan.message}`;
      rawError = scan.message;
    }
    if (count > 1) return { metas, error: rawError };
    const yamlMetas: Meta[] = [];
    const yamlError = decodeYaml(decoder.decode(bytes.subarray(skipToNextLine(bytes, pos))), yamlMetas);
    metas.push(...yamlMetas);
    if (yamlError === undefined) return { metas };
    return { metas, error: yamlMetas.length === 0 ? firstError : yamlError };
  }
}

/**
 * Decodes only the first document of a JSON or YAML stream to a JSON value, the way opm's template commands read
 * a template (`YAMLOrJSONDecoder.Decode` once). `undefined` when the stream is empty. With a `target`, YAML
 * scalars bound for Go strings are read as strings, as decoding into that Go type does.
 *
 * @throws Error with opm's decoder message
 */
export function decodeFirstDocument(bytes: Uint8Array, target?: GoType): unknown {
  if (looksLikeJson(bytes)) {
    const scan = scanJsonValue(bytes, 0);
    if (scan.kind === 'value') return JSON.parse(decoder.decode(bytes.subarray(scan.start, scan.end)));
    const jsonError =
      scan.kind === 'syntax'
        ? `json: offset ${scan.offset}: ${scan.message}`
        : scan.kind === 'eof'
          ? 'EOF'
          : 'unexpected EOF';
    try {
      for (const item of yamlDocuments(decoder.decode(bytes))) {
        if ('error' in item) break;
        return yamlDocumentToJson(item.text, target);
      }
    } catch {
      // the JSON error is the one reported
    }
    throw new Error(jsonError);
  }
  for (const item of yamlDocuments(decoder.decode(bytes))) {
    if ('error' in item) throw new Error(item.error);
    return yamlDocumentToJson(item.text, target);
  }
  return undefined;
}
