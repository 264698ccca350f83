import { formatVersion, type PrereleaseIdentifier, type Version } from '../semver/version.js';
import { byteOrder } from './go-format.js';
import type { ParsedProperties } from './properties.js';
import type { BundleBlob, ChannelBlob, PackageBlob } from './types.js';

/**
 * The package/channel/bundle model that opm's `declcfg.ConvertToModel` builds from a declarative config and
 * `model.Validate` checks. A bundle appears once per channel that lists it, as a separate object carrying that
 * channel's upgrade edges.
 */
export interface CatalogModel {
  readonly packages: Map<string, ModelPackage>;
  /** The parsed properties of every bundle blob whose properties parsed, converted or not. */
  readonly properties: Map<BundleBlob, ParsedProperties>;
}

export interface ModelPackage {
  readonly name: string;
  readonly blob: PackageBlob;
  readonly channels: Map<string, ModelChannel>;
  defaultChannel?: ModelChannel;
  deprecation?: string;
}

export interface ModelChannel {
  readonly name: string;
  /** Absent for a default channel that no `olm.channel` blob declares. */
  readonly blob?: ChannelBlob;
  readonly bundles: Map<string, ModelBundle>;
  deprecation?: string;
}

/** A channel entry, completed by its `olm.bundle` blob once that blob converts. */
export interface ModelBundle {
  readonly name: string;
  readonly replaces: string;
  readonly skips: readonly string[];
  readonly skipRange: string;
  blob?: BundleBlob;
  version?: Version;
  release: PrereleaseIdentifier[];
  deprecation?: string;
}

/** A bundle's version with its release appended (opm's `VersionString`); `0.0.0` when it has none. */
export function versionString(bundle: ModelBundle): string {
  const version = bundle.version ? formatVersion(bundle.version) : '0.0.0';
  return bundle.release.length > 0 ? `${version}-${bundle.release.map(String).join('.')}` : version;
}

/** The map's values ordered by key, bytewise as Go sorts strings, so results do not depend on input order. */
export function sortedValues<T>(map: ReadonlyMap<string, T>): T[] {
  return [...map.entries()].sort(([a], [b]) => byteOrder(a, b)).map(([, value]) => value);
}
