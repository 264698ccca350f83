import {
  byteOrder,
  goBoolVerbOfJsonInterface,
  goFormatJsonInterface,
  goQuote,
} from '../../go-compat/go-format.js';
import { goIndentJson } from '../../go-compat/go-json.js';

/**
 * opm's `declcfg.Meta`: the case-insensitively extracted `schema`, `package` and `name` of a blob plus the blob
 * itself. `blob` is `null` for documents that decode to JSON `null` (empty YAML documents).
 */
export interface Meta {
  readonly schema: string;
  readonly package: string;
  readonly name: string;
  readonly blob: Record<string, unknown> | null;
}

/** A document could not become a {@link Meta}; `message` is the text opm prints. */
export class MetaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MetaError';
  }
}

/** opm's `prettyunmarshaler` rendering of a JSON type error at `offset` in `data`. */
export function prettyJsonError(message: string, data: string, offset: number): string {
  if (data.length === 0 || offset < 0 || offset > data.length) return message;
  const marker = ' <==';
  const head = `${message} at offset ${offset} (indicated by${marker})\n`;
  const pretty = goIndentJson(data, '    ');
  if (offset === data.length) return head + pretty + marker;
  let p = 0;
  for (let d = 0; d < offset; d++) {
    while (pretty[p] !== data[d]) {
      p++;
      if (p >= pretty.length) return message;
    }
    p++;
  }
  return `${head}${pretty.slice(0, p)}${marker} ${pretty.slice(p)}`;
}

function jsonKind(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'array' : 'object';
}

/**
 * Turns one decoded document into a {@link Meta} exactly like `declcfg.Meta.UnmarshalJSON`: the value must be an
 * object; keys equal after case folding are an error (`duplicate keys for key "name": [Name name]`); `schema`,
 * `package` and `name` are found case-insensitively and must be strings.
 *
 * @param value the decoded document
 * @param text the JSON text of the document, or how to make it: used only to render the position of a value that
 *   is not an object, so a document read as YAML is never written as JSON just for that
 * @throws MetaError
 */
export function toMeta(value: unknown, text: string | (() => string)): Meta {
  if (value === null) return { schema: '', package: '', name: '', blob: null };
  if (typeof value !== 'object' || Array.isArray(value)) {
    const kind = jsonKind(value);
    const json = typeof text === 'string' ? text : text();
    const offset = kind === 'array' ? 1 : json.length;
    const message = `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
    throw new MetaError(prettyJsonError(message, json, offset));
  }
  const blob = value as Record<string, unknown>;
  const keys = Object.keys(blob);
  if (foldsApartFromMetaFields(blob, keys)) {
    return {
      schema: stringField(blob, ownKey(blob, 'schema')),
      package: stringField(blob, ownKey(blob, 'package')),
      name: stringField(blob, ownKey(blob, 'name')),
      blob,
    };
  }
  // Each key folded once, kept in a set only to find a collision: catalogs have none, and only then are the
  // keys grouped for the error (metaByFolding).
  const folded = new Set<string>();
  let schemaKey: string | undefined;
  let packageKey: string | undefined;
  let nameKey: string | undefined;
  for (const key of keys) {
    const f = key.toLowerCase();
    if (folded.has(f)) return metaByFolding(blob);
    folded.add(f);
    if (f === 'schema') schemaKey = key;
    else if (f === 'package') packageKey = key;
    else if (f === 'name') nameKey = key;
  }
  return {
    schema: stringField(blob, schemaKey),
    package: stringField(blob, packageKey),
    name: stringField(blob, nameKey),
    blob,
  };
}

/**
 * Whether the keys are ASCII, no two fold alike, and none but `schema`, `package` and `name` themselves folds to
 * one of those: then each Meta field is its own key or absent. True of every catalog document opm writes, and
 * checked with a fold only for keys with capitals (`relatedImages`), without the set of every folded key.
 */
function foldsApartFromMetaFields(blob: Record<string, unknown>, keys: readonly string[]): boolean {
  const foldedCapitals: string[] = [];
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    let capitals = false;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      if (c > 0x7f) return false; // outside ASCII, folding can even turn a key into a Meta field's name
      if (c >= 0x41 && c <= 0x5a) capitals = true;
    }
    if (!capitals) continue; // folds to itself, and is distinct from every other key that does
    const f = key.toLowerCase();
    if (f === 'schema' || f === 'package' || f === 'name' || Object.hasOwn(blob, f)) return false;
    if (foldedCapitals.includes(f)) return false;
    foldedCapitals.push(f);
  }
  return true;
}

const ownKey = (blob: Record<string, unknown>, key: string): string | undefined =>
  Object.hasOwn(blob, key) ? key : undefined;

/** The value of `key` (the key that folds to a Meta field), which must be a string; `''` without one. */
function stringField(blob: Record<string, unknown>, key: string | undefined): string {
  if (key === undefined) return '';
  const v = blob[key];
  if (typeof v !== 'string') {
    throw new MetaError(
      `expected value for key ${goQuote(key)} to be a string, got ${goBoolVerbOfJsonInterface(v)}: ${goFormatJsonInterface(v)}`,
    );
  }
  return v;
}

/**
 * The {@link Meta} of an object, grouping every key by its folded form first: what {@link toMeta} does when two
 * keys fold alike, and the reference its single pass is tested against.
 *
 * @throws MetaError
 */
export function metaByFolding(blob: Record<string, unknown>): Meta {
  const folded = new Map<string, string[]>();
  for (const key of Object.keys(blob)) {
    const f = key.toLowerCase();
    const keys = folded.get(f);
    if (keys) keys.push(key);
    else folded.set(f, [key]);
  }
  const duplicates = [...folded.entries()]
    .filter(([, keys]) => keys.length > 1)
    .sort(([a], [b]) => byteOrder(a, b))
    .map(([f, keys]) => `duplicate keys for key ${goQuote(f)}: [${keys.sort(byteOrder).join(' ')}]`);
  if (duplicates.length === 1) throw new MetaError(duplicates[0]!);
  if (duplicates.length > 1) throw new MetaError(`[${duplicates.join(', ')}]`);
  const pick = (name: string): string => stringField(blob, folded.get(name)?.[0]);
  return { schema: pick('schema'), package: pick('package'), name: pick('name'), blob };
}
