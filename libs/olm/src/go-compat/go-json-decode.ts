import { Base64Error, decodeGoBase64, encodeGoBase64, isCanonicalBase64 } from './go-base64.js';
import { byteOrder, sortInByteOrder } from './go-format.js';
import { goFieldName } from './index.js';

/** A Go type as far as `encoding/json` decoding cares; `name` is what Go prints in type errors. */
export type GoType =
  | { readonly kind: 'string'; readonly name?: string }
  | { readonly kind: 'int'; readonly name?: string }
  | { readonly kind: 'bool'; readonly name?: string }
  /** `[]byte`: a base64 string, decoded and re-encoded canonically. */
  | { readonly kind: 'bytes' }
  /** `json.RawMessage`: any value, kept as is (JSON `null` stays `null`). */
  | { readonly kind: 'raw' }
  /** `interface{}`. */
  | { readonly kind: 'any' }
  | { readonly kind: 'slice'; readonly elem: GoType; readonly name: string }
  | { readonly kind: 'map'; readonly elem: GoType; readonly name: string }
  | { readonly kind: 'ptr'; readonly elem: GoType }
  | { readonly kind: 'struct'; readonly name: string; readonly fields: Readonly<Record<string, GoType>> };

/** Outcome of {@link decodeGo}: Go keeps decoding after a type error and reports the first one. */
export interface GoDecodeResult {
  readonly value: unknown;
  readonly error?: string;
}

/** Options of {@link decodeGo}. */
export interface GoDecodeOptions {
  /** Reject unknown object keys like `Decoder.DisallowUnknownFields` (`json: unknown field "x"`). */
  readonly disallowUnknownFields?: boolean;
}

/** The Go type name printed in `cannot unmarshal` errors. */
export function goTypeString(t: GoType): string {
  switch (t.kind) {
    case 'string':
      return t.name ?? 'string';
    case 'int':
      return t.name ?? 'int';
    case 'bool':
      return t.name ?? 'bool';
    case 'bytes':
      return '[]uint8';
    case 'raw':
      return 'json.RawMessage';
    case 'any':
      return 'interface {}';
    case 'ptr':
      return `*${goTypeString(t.elem)}`;
    default:
      return t.name;
  }
}

function jsonKind(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

function shortName(structName: string): string {
  const dot = structName.lastIndexOf('.');
  return dot < 0 ? structName : structName.slice(dot + 1);
}

/**
 * Decodes an already parsed JSON value into the shape of a Go type with the semantics of `encoding/json`: struct
 * fields match exactly first and then case-insensitively, unknown fields are ignored, `null` leaves the zero value,
 * keys are visited in Go map order (sorted), and the first type mismatch is reported with Go's exact message
 * while decoding continues. Struct results are plain objects keyed by the JSON field names.
 */
// Long on purpose: the nested `decode` is one switch over Go's kinds, as encoding/json decodes them, and shares
// the first error and the struct field path with `mismatch`; see the comment on `decode`.
export function decodeGo(input: unknown, type: GoType, options: GoDecodeOptions = {}): GoDecodeResult {
  let firstError: string | undefined;
  // The Go name of the struct whose field is being decoded, shortened only when a mismatch is reported.
  let structName: string | undefined;
  const fieldStack: string[] = [];
  const save = (message: string): void => {
    firstError ??= message;
  };
  const mismatch = (what: string, t: GoType): void => {
    const target = goTypeString(t);
    if (structName !== undefined) {
      save(
        `json: cannot unmarshal ${what} into Go struct field ${shortName(structName)}.${fieldStack.join('.')} of type ${target}`,
      );
    } else {
      save(`json: cannot unmarshal ${what} into Go value of type ${target}`);
    }
  };

  // Long on purpose: one case per Go kind, each with encoding/json's conversion and mismatch rules; the cases
  // share the error and field-path state above, which separate functions would have to pass around.
  const decode = (v: unknown, t: GoType): unknown => {
    if (v === null || v === undefined) return t.kind === 'raw' || t.kind === 'any' ? v : undefined;
    switch (t.kind) {
      case 'raw':
      case 'any':
        return v;
      case 'ptr':
        return decode(v, t.elem);
      case 'string':
        if (typeof v === 'string') return v;
        mismatch(jsonKind(v), t);
        return undefined;
      case 'bool':
        if (typeof v === 'boolean') return v;
        mismatch(jsonKind(v), t);
        return undefined;
      case 'int':
        if (typeof v === 'number') {
          if (Number.isInteger(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER) return v;
          mismatch(`number ${JSON.stringify(v)}`, t);
          return undefined;
        }
        mismatch(jsonKind(v), t);
        return undefined;
      case 'bytes':
        if (typeof v === 'string') {
          // Decoding and re-encoding canonical text gives it back: megabytes of manifests need not be copied.
          if (isCanonicalBase64(v)) return v;
          try {
            return encodeGoBase64(decodeGoBase64(v));
          } catch (err) {
            if (!(err instanceof Base64Error)) throw err;
            save(err.message);
            return undefined;
          }
        }
        if (Array.isArray(v)) {
          const bytes = v.map((e) => decode(e, { kind: 'int', name: 'uint8' }));
          return encodeGoBase64(Uint8Array.from(bytes.map((b) => (typeof b === 'number' ? b & 0xff : 0))));
        }
        mismatch(jsonKind(v), t);
        return undefined;
      case 'slice':
        if (Array.isArray(v)) return v.map((e) => decode(e, t.elem) ?? zero(t.elem));
        mismatch(jsonKind(v), t);
        return undefined;
      case 'map': {
        if (typeof v !== 'object' || Array.isArray(v)) {
          mismatch(jsonKind(v), t);
          return undefined;
        }
        const out: Record<string, unknown> = {};
        for (const k of sortInByteOrder(Object.keys(v))) {
          out[k] = decode((v as Record<string, unknown>)[k], t.elem) ?? zero(t.elem);
        }
        return out;
      }
      case 'struct': {
        if (typeof v !== 'object' || Array.isArray(v)) {
          mismatch(jsonKind(v), t);
          return undefined;
        }
        const out: Record<string, unknown> = {};
        const keys = Object.keys(v);
        if (keys.length > 1) sortInByteOrder(keys);
        for (const key of keys) {
          const field = goFieldName(t.fields, key);
          if (field === undefined) {
            if (options.disallowUnknownFields) save(`json: unknown field ${JSON.stringify(key)}`);
            continue;
          }
          const savedStruct = structName;
          structName = t.name;
          fieldStack.push(field);
          const decoded = decode((v as Record<string, unknown>)[key], t.fields[field]!);
          fieldStack.pop();
          structName = savedStruct;
          if (decoded !== undefined) out[field] = decoded;
        }
        return out;
      }
    }
  };
  const value = decode(input, type);
  return firstError === undefined ? { value } : { value, error: firstError };
}

/**
 * Whether {@link decodeGo} gives `v` back unchanged and no error: every object key is a field name spelt exactly
 * (or a map key), every value has its Go type, there is no `null` on the way, which decoding drops or zeroes,
 * and every `[]byte` is canonical base64, which re-encoding gives back. With `inOrder` (the default) the keys must also come in Go's order, as the decoder
 * visits them sorted: then even the key order is the same. A value this holds for can be used as its own
 * decoding: no walk that copies it, and nothing more to collect.
 */
export function decodesToItself(v: unknown, t: GoType, inOrder = true): boolean {
  if (v === null || v === undefined) return false;
  switch (t.kind) {
    case 'raw':
    case 'any':
      return true;
    case 'ptr':
      return decodesToItself(v, t.elem, inOrder);
    case 'string':
      return typeof v === 'string';
    case 'bool':
      return typeof v === 'boolean';
    case 'int':
      return typeof v === 'number' && Number.isInteger(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER;
    case 'bytes':
      return typeof v === 'string' && isCanonicalBase64(v);
    case 'slice':
      if (!Array.isArray(v)) return false;
      for (let i = 0; i < v.length; i++) if (!decodesToItself(v[i], t.elem, inOrder)) return false;
      return true;
    case 'map':
    case 'struct': {
      if (typeof v !== 'object' || Array.isArray(v)) return false;
      let previous: string | undefined;
      for (const key in v) {
        // `__proto__` would set the decoded map's prototype instead of a key.
        if (!Object.hasOwn(v, key) || key === '__proto__') return false;
        if (inOrder && previous !== undefined && byteOrder(previous, key) >= 0) return false;
        previous = key;
        const type = t.kind === 'map' ? t.elem : Object.hasOwn(t.fields, key) ? t.fields[key] : undefined;
        if (type === undefined) return false;
        if (!decodesToItself((v as Record<string, unknown>)[key], type, inOrder)) return false;
      }
      return true;
    }
  }
}

function zero(t: GoType): unknown {
  switch (t.kind) {
    case 'string':
      return '';
    case 'int':
      return 0;
    case 'bool':
      return false;
    case 'struct':
      return {};
    default:
      return undefined;
  }
}
