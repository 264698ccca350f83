import { PROPERTY_BUNDLE_OBJECT, readBundleObjects } from '../../catalog/declcfg/properties.js';
import type { BundleBlob } from '../../catalog/declcfg/types.js';
import type { ModelBundle } from '../../catalog/model/catalog-model.js';
import { versionText } from '../../catalog/model/catalog-model.js';
import { byteOrder, sortInByteOrder } from '../../go-compat/go-format.js';
import { canonicalJson } from './canonical-json.js';
import type { BundleDiff, ObjectRef, PropertyChange, RelatedImageRef, ValueChange } from './types.js';

/** The change of an optional text, or `undefined` when both sides say the same. */
export function valueChange(from: string | undefined, to: string | undefined): ValueChange | undefined {
  if ((from ?? '') === (to ?? '')) return undefined;
  return { ...(from ? { from } : {}), ...(to ? { to } : {}) };
}

/** What differs in a bundle present in both catalogs; `undefined` when nothing does. */
export function diffBundle(previous: ModelBundle, next: ModelBundle): BundleDiff | undefined {
  const before = previous.blob as BundleBlob;
  const after = next.blob as BundleBlob;
  const image = valueChange(before.image, after.image);
  const deprecation = valueChange(previous.deprecation, next.deprecation);
  const properties = diffProperties(before, after);
  const objects = diffObjects(before, after);
  const related = diffRelatedImages(before.relatedImages ?? [], after.relatedImages ?? []);
  const unchanged =
    image === undefined &&
    deprecation === undefined &&
    properties.length === 0 &&
    objects.added.length + objects.removed.length + objects.changed.length === 0 &&
    related.added.length + related.removed.length + related.changed.length === 0;
  if (unchanged) return undefined;
  const version = versionText(next);
  return {
    name: next.name,
    ...(version === undefined ? {} : { version }),
    ...(image === undefined ? {} : { image }),
    ...(deprecation === undefined ? {} : { deprecation }),
    properties,
    objectsAdded: objects.added,
    objectsRemoved: objects.removed,
    objectsChanged: objects.changed,
    relatedImagesAdded: related.added,
    relatedImagesRemoved: related.removed,
    relatedImagesChanged: related.changed,
  };
}

/** Each side's values of one property type, as canonical JSON, in byte order. */
function propertiesByType(blob: BundleBlob): Map<string, string[]> {
  const byType = new Map<string, string[]>();
  for (const property of blob.properties) {
    if (property.type === PROPERTY_BUNDLE_OBJECT) continue;
    const values = byType.get(property.type) ?? [];
    values.push(canonicalJson(property.value));
    byType.set(property.type, values);
  }
  for (const values of byType.values()) values.sort(byteOrder);
  return byType;
}

function diffProperties(before: BundleBlob, after: BundleBlob): PropertyChange[] {
  const previous = propertiesByType(before);
  const next = propertiesByType(after);
  const types = sortInByteOrder([...new Set([...previous.keys(), ...next.keys()])]);
  const changes: PropertyChange[] = [];
  for (const type of types) {
    const from = previous.get(type) ?? [];
    const to = next.get(type) ?? [];
    const removed = multisetMinus(from, to);
    const added = multisetMinus(to, from);
    if (removed.length === 0 && added.length === 0) continue;
    if (from.length === 1 && to.length === 1) {
      const [was, is] = [from[0] as string, to[0] as string];
      changes.push({
        type,
        added: [],
        removed: [],
        changed: { from: was, to: is, fields: changedFields(was, is) },
      });
    } else {
      changes.push({ type, added, removed });
    }
  }
  return changes;
}

/** The values of `a` that `b` does not match one for one (both in byte order). */
function multisetMinus(a: readonly string[], b: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const v of b) left.set(v, (left.get(v) ?? 0) + 1);
  return a.filter((v) => {
    const n = left.get(v) ?? 0;
    if (n === 0) return true;
    left.set(v, n - 1);
    return false;
  });
}

/** The top-level keys whose values differ, when both values are objects; none otherwise. */
function changedFields(from: string, to: string): string[] {
  const a: unknown = JSON.parse(from);
  const b: unknown = JSON.parse(to);
  if (!isRecord(a) || !isRecord(b)) return [];
  const keys = sortInByteOrder([...new Set([...Object.keys(a), ...Object.keys(b)])]);
  return keys.filter((k) => canonicalJson(a[k]) !== canonicalJson(b[k]) || k in a !== k in b);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A bundle's manifests by `kind/name`, each key with its objects' canonical JSON in byte order. */
function objectsByKey(blob: BundleBlob): Map<string, { ref: ObjectRef; texts: string[] }> {
  const byKey = new Map<string, { ref: ObjectRef; texts: string[] }>();
  for (const text of readBundleObjects(blob).objects) {
    const object: unknown = JSON.parse(text);
    const record = isRecord(object) ? object : {};
    const metadata = isRecord(record.metadata) ? record.metadata : {};
    const ref = {
      kind: typeof record.kind === 'string' ? record.kind : '',
      name: typeof metadata.name === 'string' ? metadata.name : '',
    };
    const key = `${ref.kind}/${ref.name}`;
    const entry = byKey.get(key) ?? { ref, texts: [] };
    entry.texts.push(canonicalJson(object));
    byKey.set(key, entry);
  }
  for (const entry of byKey.values()) entry.texts.sort(byteOrder);
  return byKey;
}

/** The encoded manifests of the blob as the catalog carries them, in byte order: equal lists mean equal objects. */
function encodedObjects(blob: BundleBlob): string[] {
  const encoded: string[] = [];
  for (const p of blob.properties) {
    if (p.type !== 'olm.bundle.object') continue;
    const data = isRecord(p.value) ? p.value.data : undefined;
    encoded.push(typeof data === 'string' ? data : JSON.stringify(p.value));
  }
  return encoded.sort(byteOrder);
}

function diffObjects(
  before: BundleBlob,
  after: BundleBlob,
): { added: ObjectRef[]; removed: ObjectRef[]; changed: ObjectRef[] } {
  // Most bundles of two revisions of a catalog are the same bytes: only those that differ are decoded.
  const was = encodedObjects(before);
  const is = encodedObjects(after);
  if (was.length === is.length && was.every((data, i) => data === is[i])) {
    return { added: [], removed: [], changed: [] };
  }
  const previous = objectsByKey(before);
  const next = objectsByKey(after);
  const out = { added: [] as ObjectRef[], removed: [] as ObjectRef[], changed: [] as ObjectRef[] };
  for (const key of sortInByteOrder([...new Set([...previous.keys(), ...next.keys()])])) {
    const was = previous.get(key);
    const is = next.get(key);
    if (was === undefined) out.added.push((is as { ref: ObjectRef }).ref);
    else if (is === undefined) out.removed.push(was.ref);
    else if (was.texts.join('\n') !== is.texts.join('\n')) out.changed.push(is.ref);
  }
  return out;
}

function diffRelatedImages(
  before: readonly RelatedImageRef[],
  after: readonly RelatedImageRef[],
): {
  added: RelatedImageRef[];
  removed: RelatedImageRef[];
  changed: { name: string; from: string; to: string }[];
} {
  // Named images are matched by name, so a new tag or digest reads as a change; unnamed ones by their image.
  const key = (r: RelatedImageRef): string => (r.name === '' ? `\u0000${r.image}` : r.name);
  const previous = new Map(before.map((r) => [key(r), r]));
  const next = new Map(after.map((r) => [key(r), r]));
  const out = {
    added: [] as RelatedImageRef[],
    removed: [] as RelatedImageRef[],
    changed: [] as { name: string; from: string; to: string }[],
  };
  for (const k of sortInByteOrder([...new Set([...previous.keys(), ...next.keys()])])) {
    const was = previous.get(k);
    const is = next.get(k);
    if (was === undefined)
      out.added.push({ name: (is as RelatedImageRef).name, image: (is as RelatedImageRef).image });
    else if (is === undefined) out.removed.push({ name: was.name, image: was.image });
    else if (was.image !== is.image) out.changed.push({ name: is.name, from: was.image, to: is.image });
  }
  return out;
}
