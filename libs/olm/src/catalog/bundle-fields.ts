/**
 * A bundle document already in the shape that decoding it into opm's `declcfg.Bundle` gives, recognised without
 * the decoder: catalogs opm writes (and most others) spell every field exactly and give it its Go type.
 */

type Fields = Record<string, unknown>;

const BUNDLE_FIELDS = new Set(['schema', 'name', 'package', 'image', 'properties', 'relatedImages']);
const SCALAR_FIELDS = ['schema', 'name', 'package', 'image'] as const;

const isObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether every own key of `v` is one of `names`, spelt exactly. */
function onlyKeys(v: Fields, ...names: string[]): boolean {
  for (const key in v) {
    if (!Object.hasOwn(v, key) || !names.includes(key)) return false;
  }
  return true;
}

/** A `property.Property` as decoding builds it, or `undefined` when only the decoder knows what it becomes. */
function exactProperty(p: unknown): Fields | undefined {
  if (!isObject(p) || typeof p.type !== 'string' || !onlyKeys(p, 'type', 'value')) return undefined;
  return 'value' in p ? { type: p.type, value: p.value } : { type: p.type };
}

function exactRelatedImage(r: unknown): boolean {
  return (
    isObject(r) &&
    onlyKeys(r, 'name', 'image') &&
    (r.name === undefined || typeof r.name === 'string') &&
    (r.image === undefined || typeof r.image === 'string')
  );
}

/**
 * What `decodeGo(blob, GO_BUNDLE)` gives for a blob whose keys are all exactly `declcfg.Bundle`'s fields, each of
 * its Go type (no `null`): a new object with new properties, the blob left as it is. `undefined` for any other blob, which then
 * takes the decoder with its case-insensitive fields, unknown fields and type errors.
 */
export function exactBundleFields(blob: unknown): Fields | undefined {
  if (!isObject(blob)) return undefined;
  const out: Fields = {};
  for (const key in blob) {
    if (!Object.hasOwn(blob, key) || !BUNDLE_FIELDS.has(key)) return undefined;
  }
  for (const field of SCALAR_FIELDS) {
    const value = blob[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') return undefined;
    out[field] = value;
  }
  if (blob.properties !== undefined) {
    if (!Array.isArray(blob.properties)) return undefined;
    const properties: Fields[] = [];
    for (const p of blob.properties) {
      const property = exactProperty(p);
      if (property === undefined) return undefined;
      properties.push(property);
    }
    out.properties = properties;
  }
  if (blob.relatedImages !== undefined) {
    if (!Array.isArray(blob.relatedImages) || !blob.relatedImages.every(exactRelatedImage)) return undefined;
    // Shared with the blob: the bundle copies each related image it keeps.
    out.relatedImages = blob.relatedImages;
  }
  return out;
}
