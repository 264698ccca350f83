/** Schema names of the file-based catalog blobs opm understands. */
export const SCHEMA_PACKAGE = 'olm.package';
export const SCHEMA_CHANNEL = 'olm.channel';
export const SCHEMA_BUNDLE = 'olm.bundle';
export const SCHEMA_DEPRECATIONS = 'olm.deprecations';

/** Where a blob was read from: the file (relative to the catalog root, `/`-separated) and its document index. */
export interface BlobSource {
  readonly file: string;
  readonly index: number;
}

/**
 * One bundle or package property. `value` is the decoded JSON value; `undefined` means the `value` key was
 * absent (opm then fails with `unexpected end of JSON input` when it needs the value).
 */
export interface Property {
  type: string;
  value?: unknown;
}

/** `olm.package` icon; `base64data` is standard base64 (as opm re-encodes it). */
export interface PackageIcon {
  base64data: string;
  mediatype: string;
}

/** An `olm.package` blob. */
export interface PackageBlob {
  schema: typeof SCHEMA_PACKAGE;
  name: string;
  defaultChannel: string;
  icon?: PackageIcon;
  description?: string;
  properties?: Property[];
  source?: BlobSource;
}

/** One entry of an `olm.channel`: the bundle name and its incoming upgrade edges. */
export interface ChannelEntry {
  name: string;
  replaces?: string;
  skips?: string[];
  /** A blang/semver range of versions that may upgrade directly to this entry. */
  skipRange?: string;
}

/** An `olm.channel` blob. */
export interface ChannelBlob {
  schema: typeof SCHEMA_CHANNEL;
  name: string;
  package: string;
  entries: ChannelEntry[];
  properties?: Property[];
  source?: BlobSource;
}

/** A related image of a bundle. */
export interface BundleRelatedImage {
  name: string;
  image: string;
}

/** A bundle's `olm.bundle.object` manifests, converted to JSON text as opm does on load. */
export interface BundleObjects {
  /** Every object, as JSON text. */
  readonly objects: readonly string[];
  /** The ClusterServiceVersion among them, if any: the first object of that kind, found on first use. */
  readonly csv?: Record<string, unknown>;
  /** The JSON text of {@link csv} (opm's `CsvJSON`), `''` when there is none. */
  readonly csvJson: string;
}

/** The key of a bundle blob's decoded `olm.bundle.object` manifests (see {@link BundleBlob}). */
export const DECODED_OBJECTS: unique symbol = Symbol('decoded bundle objects');

/**
 * An `olm.bundle` blob. Its properties normally include exactly one `olm.package` and any number of `olm.gvk`,
 * `olm.gvk.required`, `olm.package.required`, `olm.constraint`, `olm.csv.metadata` and `olm.bundle.object`.
 */
export interface BundleBlob {
  schema: typeof SCHEMA_BUNDLE;
  name: string;
  package: string;
  /** The bundle image pull spec; may be `""` when the bundle carries `olm.bundle.object` properties. */
  image: string;
  properties: Property[];
  relatedImages?: BundleRelatedImage[];
  source?: BlobSource;
  /**
   * Its `olm.bundle.object` manifests, decoded by `readBundleObjects` on first use and kept here. Not enumerable: copies,
   * comparisons and the writers see only the fields above, and a copy (with other properties, say) decodes its own.
   */
  readonly [DECODED_OBJECTS]?: BundleObjects;
}

/** What an `olm.deprecations` entry points at. */
export interface DeprecationReference {
  schema: string;
  name?: string;
}

/** One deprecation notice. */
export interface DeprecationEntry {
  reference: DeprecationReference;
  message: string;
}

/** An `olm.deprecations` blob (at most one per package). */
export interface DeprecationBlob {
  schema: typeof SCHEMA_DEPRECATIONS;
  package: string;
  entries: DeprecationEntry[];
  source?: BlobSource;
}

/**
 * A blob with any other schema. opm keeps these verbatim ("others") and serves them through its experimental API;
 * `blob` is the whole JSON object.
 */
export interface OtherBlob {
  schema: string;
  package: string;
  name: string;
  blob: Record<string, unknown>;
  source?: BlobSource;
}

/** A file-based catalog in memory: every blob of every file, grouped by schema. */
export interface Catalog {
  packages: PackageBlob[];
  channels: ChannelBlob[];
  bundles: BundleBlob[];
  deprecations: DeprecationBlob[];
  others: OtherBlob[];
}

/** An empty catalog. */
export function emptyCatalog(): Catalog {
  return { packages: [], channels: [], bundles: [], deprecations: [], others: [] };
}
