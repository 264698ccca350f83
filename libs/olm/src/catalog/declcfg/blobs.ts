import { goJsonMarshal } from '../../go-compat/go-json.js';
import { decodeGo, decodesToItself } from '../../go-compat/go-json-decode.js';
import { exactBundleFields } from './bundle-fields.js';
import { GO_BUNDLE, GO_CHANNEL, GO_DEPRECATION, GO_PACKAGE } from './go-schemas.js';
import type { Meta } from './meta.js';
import { BundleObjectError, checkBundleObjects } from './properties.js';
import {
  type BlobSource,
  type BundleBlob,
  type BundleRelatedImage,
  type Catalog,
  type ChannelBlob,
  type ChannelEntry,
  type DeprecationBlob,
  type DeprecationEntry,
  type OtherBlob,
  type PackageBlob,
  type Property,
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_DEPRECATIONS,
  SCHEMA_PACKAGE,
} from './types.js';

type Fields = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A property as {@link properties} builds it. */
function propertyOf(p: Fields): Property {
  return 'value' in p ? { type: str(p.type), value: p.value } : { type: str(p.type) };
}

/**
 * Whether a decoded `property.Property` already is what {@link propertyOf} would build: a string `type` as its
 * first key, then at most `value` (the decoder gives structs no other keys).
 */
function isBuiltProperty(p: Fields): boolean {
  if (typeof p.type !== 'string') return false;
  for (const key in p) return key === 'type';
  return false;
}

/** The properties of a decoded blob, each built anew. */
export function copiedProperties(v: unknown): Property[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.map(propertyOf);
}

/**
 * {@link copiedProperties} without the copies: `v` is the decoder's own array (or that of a blob read as it is,
 * which is dropped once added), so the array and every element that already has the built shape are kept;
 * thousands of bundles carry several properties each.
 */
export function properties(v: unknown): Property[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const decoded: (Fields | Property)[] = v;
  for (let i = 0; i < decoded.length; i++) {
    const p = decoded[i] as Fields;
    if (!isBuiltProperty(p)) decoded[i] = propertyOf(p);
  }
  // Every element is now built: kept because isBuiltProperty holds, or replaced.
  return decoded as Property[];
}

function entry(e: Fields): ChannelEntry {
  const out: ChannelEntry = { name: str(e.name) };
  if (str(e.replaces)) out.replaces = str(e.replaces);
  if (Array.isArray(e.skips) && e.skips.length > 0) out.skips = e.skips.map(str);
  if (str(e.skipRange)) out.skipRange = str(e.skipRange);
  return out;
}

/** Records where a blob was read, as its last key; the blob is one this module just built, so no copy. */
function withSource<T extends { source?: BlobSource }>(blob: T, source: BlobSource | undefined): T {
  if (source !== undefined) blob.source = source;
  return blob;
}

/** Builds a typed package blob from a decoded `declcfg.Package`. */
function toPackage(d: Fields, source?: BlobSource): PackageBlob {
  const out: PackageBlob = {
    schema: SCHEMA_PACKAGE,
    name: str(d.name),
    defaultChannel: str(d.defaultChannel),
  };
  if (d.icon !== undefined) {
    const icon = d.icon as Fields;
    out.icon = { base64data: str(icon.base64data), mediatype: str(icon.mediatype) };
  }
  if (str(d.description)) out.description = str(d.description);
  const props = properties(d.properties);
  if (props && props.length > 0) out.properties = props;
  return withSource(out, source);
}

function toChannel(d: Fields, source?: BlobSource): ChannelBlob {
  const entries = Array.isArray(d.entries) ? (d.entries as Fields[]).map(entry) : [];
  const out: ChannelBlob = { schema: SCHEMA_CHANNEL, name: str(d.name), package: str(d.package), entries };
  const props = properties(d.properties);
  if (props && props.length > 0) out.properties = props;
  return withSource(out, source);
}

/**
 * A related image as the bundle keeps it: the decoded one itself when it already is `{ name, image }`, both
 * strings, in that order (as opm writes them), else a copy in that shape.
 */
function relatedImage(r: Fields): BundleRelatedImage {
  let count = 0;
  let inShape = true;
  for (const key in r) {
    if (!Object.hasOwn(r, key) || key !== RELATED_IMAGE_KEYS[count]) inShape = false;
    count++;
  }
  if (inShape && count === 2 && typeof r.name === 'string' && typeof r.image === 'string') {
    return r as unknown as BundleRelatedImage;
  }
  return { name: str(r.name), image: str(r.image) };
}

const RELATED_IMAGE_KEYS: readonly string[] = ['name', 'image'];

function toBundle(d: Fields, source?: BlobSource): BundleBlob {
  const out: BundleBlob = {
    schema: SCHEMA_BUNDLE,
    name: str(d.name),
    package: str(d.package),
    image: str(d.image),
    properties: properties(d.properties) ?? [],
  };
  if (Array.isArray(d.relatedImages) && d.relatedImages.length > 0) {
    out.relatedImages = (d.relatedImages as Fields[]).map(relatedImage);
  }
  return withSource(out, source);
}

function toDeprecation(d: Fields, source?: BlobSource): DeprecationBlob {
  const entries = Array.isArray(d.entries)
    ? (d.entries as Fields[]).map((e): DeprecationEntry => {
        const ref = (e.reference ?? {}) as Fields;
        const reference = str(ref.name)
          ? { schema: str(ref.schema), name: str(ref.name) }
          : { schema: str(ref.schema) };
        return { reference, message: str(e.message) };
      })
    : [];
  const out: DeprecationBlob = { schema: SCHEMA_DEPRECATIONS, package: str(d.package), entries };
  return withSource(out, source);
}

/**
 * Adds one document to a catalog exactly like opm's `fbcBuilder.addMeta`: known schemas are decoded with Go's
 * rules (case-insensitive fields, unknown fields dropped, type errors reported), a bundle's `olm.bundle.object`
 * properties are checked, a missing schema is an error and any other schema is kept as an "other" blob.
 *
 * @returns opm's error message, or `undefined` when the document was added.
 */
export function addMeta(catalog: Catalog, meta: Meta, source?: BlobSource): string | undefined {
  const blob = meta.blob ?? {};
  switch (meta.schema) {
    case SCHEMA_PACKAGE: {
      // Packages and channels are rebuilt field by field: one that decodes to itself in any key order is read
      // as it is, without the decoder's copy.
      if (decodesToItself(blob, GO_PACKAGE, false)) {
        catalog.packages.push(toPackage(blob, source));
        return undefined;
      }
      const { value, error } = decodeGo(blob, GO_PACKAGE);
      if (error !== undefined) return `parse package: ${error}`;
      catalog.packages.push(toPackage(value as Fields, source));
      return undefined;
    }
    case SCHEMA_CHANNEL: {
      if (decodesToItself(blob, GO_CHANNEL, false)) {
        catalog.channels.push(toChannel(blob, source));
        return undefined;
      }
      const { value, error } = decodeGo(blob, GO_CHANNEL);
      if (error !== undefined) return `parse channel: ${error}`;
      catalog.channels.push(toChannel(value as Fields, source));
      return undefined;
    }
    case SCHEMA_BUNDLE: {
      let fields = exactBundleFields(blob);
      if (fields === undefined) {
        const { value, error } = decodeGo(blob, GO_BUNDLE);
        if (error !== undefined) return `parse bundle: ${error}`;
        fields = value as Fields;
      }
      const bundle = toBundle(fields, source);
      try {
        checkBundleObjects(bundle);
      } catch (err) {
        if (err instanceof BundleObjectError) return `read bundle objects: ${err.message}`;
        throw err;
      }
      catalog.bundles.push(bundle);
      return undefined;
    }
    case SCHEMA_DEPRECATIONS: {
      const { value, error } = decodeGo(blob, GO_DEPRECATION);
      if (error !== undefined) return `parse deprecation: ${error}`;
      catalog.deprecations.push(toDeprecation(value as Fields, source));
      return undefined;
    }
    case '':
      return `object '${meta.blob === null ? '' : `${goJsonMarshal(meta.blob, { escapeHtml: false })}\n`}' is missing root schema field`;
    default: {
      const other: OtherBlob = { schema: meta.schema, package: meta.package, name: meta.name, blob };
      catalog.others.push(withSource(other, source));
      return undefined;
    }
  }
}
