import { decodeFirstDocument } from '../catalog/declcfg/stream.js';
import { decodeGo } from '../go-compat/go-json-decode.js';
import { ANNOTATION_METADATA } from './go-types.js';

/** The decoded annotations (absent when the file has no `annotations` key), or why the Go tools refuse it. */
export type AnnotationsFile =
  | { readonly ok: true; readonly annotations?: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads an annotations file as the Go tools do: YAML or JSON, first document only, `annotations` a
 * `map[string]string` — so `true`, `8080` or `4.10` are read as the strings `"true"`, `"8080"`, `"4.1"`, and a
 * null value as `""`; only a list or mapping as a value is refused (with encoding/json's message).
 */
export function readAnnotationsFile(bytes: Uint8Array): AnnotationsFile {
  let doc: unknown;
  try {
    doc = decodeFirstDocument(bytes, ANNOTATION_METADATA);
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  const { value, error } = decodeGo(doc ?? null, ANNOTATION_METADATA);
  if (error !== undefined) return { ok: false, reason: error };
  const annotations = (value as { annotations?: Record<string, string> } | undefined)?.annotations;
  return annotations === undefined ? { ok: true } : { ok: true, annotations };
}
