/**
 * A bundle document already in the shape that decoding it into opm's `declcfg.Bundle` gives, recognised without
 * the decoder: catalogs opm writes (and most others) spell every field exactly and give it its Go type.
 */

type Fields = Record<string, unknown>;

const BUNDLE_FIELDS = new Set(['schema', 'name', 'package', 'image', 'properties', 'relatedImages']);
const SCALAR_FIELDS = ['schema', 'name', 'package', 'image'] as const;

const isObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A `property.Property` as decoding builds it, or `undefined` when only the decoder knows what it becomes. One
 * whose keys already come as decoding orders them (`type`, then `value`), as opm writes them, is `p` itself.
 */
function exactProperty(p: unknown): Fields | undefined {
  if (!isObject(p) || typeof p.type !== 'string') return undefined;
  let count = 0;
  let inOrder = true;
  for (const key in p) {
    if (!Object.hasOwn(p, key) || (key !== 'type' && key !== 'value')) return undefined;
    if (key !== (count === 0 ? 'type' : 'value')) inOrder = false;
    count++;
  }
  if (inOrder) return p;
  return 'value' in p ? { type: p.type, value: p.value } : { type: p.type };
}

function exactRelatedImage(r: unknown): boolean {
  if (!isObject(r)) return false;
  for (const key in r) {
    if (!Object.hasOwn(r, key) || (key !== 'name' && key !== 'image')) return false;
  }
  return (
    (r.name === undefined || typeof r.name === 'string') &&
    (r.image === undefined || typeof r.image === 'string')
  );
}

/**
 * What `decodeGo(blob, GO_BUNDLE)` gives for a blob whose keys are all exactly `declcfg.Bundle`'s fields, each of
 * its Go type (no `null`): a new object, the blob left as it is, sharing the blob's lists and the properties
 * that already have the shape decoding gives them. `undefined` for any other blob, which then
 * takes the decoder with its case-insensitive fields, unknown fields and type errors.
 */
export function exactBundleFields(blob: unknown): Fields | undefined {
  if (!isObject(blob)) return undefined;
  const out: Fields = {};
  for (const key in blob) {
    if (!Object.hasOwn(blob, key) || !BUNDLE_FIELDS.has(key)) return undefined;
  }
  for (let i = 0; i < SCALAR_FIELDS.length; i++) {
    const field = SCALAR_FIELDS[i]!;
    const value = blob[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') return undefined;
    out[field] = value;
  }
  if (blob.properties !== undefined) {
    if (!Array.isArray(blob.properties)) return undefined;
    // The blob's own list while every property is kept as it is; blobs are dropped once they are added.
    let properties: unknown[] = blob.properties;
    for (let i = 0; i < blob.properties.length; i++) {
      const p: unknown = blob.properties[i];
      const property = exactProperty(p);
      if (property === undefined) return undefined;
      if (property === p) continue;
      if (properties === blob.properties) properties = blob.properties.slice();
      properties[i] = property;
    }
    out.properties = properties;
  }
  if (blob.relatedImages !== undefined) {
    if (!Array.isArray(blob.relatedImages) || !blob.relatedImages.every(exactRelatedImage)) return undefined;
    // Shared with the blob: the bundle copies each related image not already in its shape.
    out.relatedImages = blob.relatedImages;
  }
  return out;
}
