import type { EdgeKind } from '../../graph/upgrade-graph.js';

/**
 * What changed between two catalogs, by meaning: packages, channels, upgrade edges and bundles compared as the
 * model holds them, never as text. Only packages with a change appear; every list is in Go's byte order, so the
 * same two catalogs always give the same structure (and the same bytes once rendered).
 */
export interface CatalogDiff {
  readonly packages: readonly PackageDiff[];
}

/** A text that changed: `from` is absent when the value was added, `to` when it was removed. */
export interface ValueChange {
  readonly from?: string;
  readonly to?: string;
}

/** A bundle by name, with its `olm.package` version when it has one. */
export interface BundleRef {
  readonly name: string;
  readonly version?: string;
}

/**
 * One package's changes. A package `added` or `removed` lists every channel and bundle it came or went with,
 * without per-channel detail; a `changed` one has the detail of each channel and bundle present on both sides.
 */
export interface PackageDiff {
  readonly name: string;
  readonly status: 'added' | 'removed' | 'changed';
  readonly defaultChannel?: ValueChange;
  readonly deprecation?: ValueChange;
  readonly channelsAdded: readonly string[];
  readonly channelsRemoved: readonly string[];
  readonly channels: readonly ChannelDiff[];
  readonly bundlesAdded: readonly BundleRef[];
  readonly bundlesRemoved: readonly BundleRef[];
  readonly bundles: readonly BundleDiff[];
}

/** An upgrade edge of a channel: installed `from` may upgrade to `to`, by `kind`. */
export interface EdgeChange {
  readonly from: string;
  readonly to: string;
  readonly kind: EdgeKind;
}

/** A channel entry whose `skipRange` text changed (absent on the side that has none). */
export interface SkipRangeChange extends ValueChange {
  readonly entry: string;
}

/** The changes of a channel present in both catalogs. */
export interface ChannelDiff {
  readonly name: string;
  readonly deprecation?: ValueChange;
  readonly entriesAdded: readonly string[];
  readonly entriesRemoved: readonly string[];
  /** Edges drawn as the upgrade graph draws them: from `replaces`, each `skips` element and `skipRange`. */
  readonly edgesAdded: readonly EdgeChange[];
  readonly edgesRemoved: readonly EdgeChange[];
  readonly skipRanges: readonly SkipRangeChange[];
}

/**
 * The values of one property type that differ, each as canonical JSON (keys in byte order). When the type has
 * exactly one value on each side (`olm.package`, `olm.csv.metadata`), the difference is one `changed` pair with
 * the names of the top-level fields that differ, rather than one value removed and one added.
 */
export interface PropertyChange {
  readonly type: string;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed?: { readonly from: string; readonly to: string; readonly fields: readonly string[] };
}

/** A manifest of a bundle (`olm.bundle.object`), by kind and name. */
export interface ObjectRef {
  readonly kind: string;
  readonly name: string;
}

/** A related image; `name` is `''` for an unnamed one. */
export interface RelatedImageRef {
  readonly name: string;
  readonly image: string;
}

/** The changes of a bundle present in both catalogs. */
export interface BundleDiff {
  readonly name: string;
  /** Its version in the new catalog, when it has one. */
  readonly version?: string;
  readonly image?: ValueChange;
  readonly deprecation?: ValueChange;
  /** By property type, in byte order; `olm.bundle.object` is compared as {@link objects} instead. */
  readonly properties: readonly PropertyChange[];
  readonly objectsAdded: readonly ObjectRef[];
  readonly objectsRemoved: readonly ObjectRef[];
  readonly objectsChanged: readonly ObjectRef[];
  readonly relatedImagesAdded: readonly RelatedImageRef[];
  readonly relatedImagesRemoved: readonly RelatedImageRef[];
  /** Named related images whose image changed. */
  readonly relatedImagesChanged: readonly {
    readonly name: string;
    readonly from: string;
    readonly to: string;
  }[];
}
