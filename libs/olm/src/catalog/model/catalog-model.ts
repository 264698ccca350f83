import { sortInByteOrder } from '../../go-compat/go-format.js';
import { formatVersion, type PrereleaseIdentifier, type Version } from '../../semver/version.js';
import type { ParsedProperties } from '../declcfg/properties.js';
import type { BundleBlob, ChannelBlob, PackageBlob } from '../declcfg/types.js';
import type { ReplacesChainResult } from './replaces-chain.js';

/**
 * The package/channel/bundle model that opm's `declcfg.ConvertToModel` builds from a declarative config: the one
 * model of a catalog. Validation checks it (`model.Validate`), the registry derives what it serves from it and
 * the upgrade graph is drawn from one of its packages. A bundle appears once per channel that lists it, as a
 * separate object carrying that channel's upgrade edges; the objects of one blob share its parsed properties.
 * Its `olm.bundle.object` manifests are only checked when the blob is loaded; whoever needs them (the registry,
 * templates) decodes them on first use with `readBundleObjects`, which keeps the result on the blob.
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
  /** The channel's replaces chain, worked out on first use by `replacesChainOf` (validation and the lint). */
  replacesChain?: ReplacesChainResult;
}

/** A channel entry, completed by its `olm.bundle` blob once that blob converts. */
export interface ModelBundle {
  readonly name: string;
  readonly replaces: string;
  readonly skips: readonly string[];
  readonly skipRange: string;
  blob?: BundleBlob;
  /** The blob's properties, parsed. */
  properties?: ParsedProperties;
  version?: Version;
  release: readonly PrereleaseIdentifier[];
  deprecation?: string;
}

/** A bundle's version with its release appended (opm's `VersionString`); `0.0.0` when it has none. */
export function versionString(bundle: ModelBundle): string {
  const version = bundle.version ? formatVersion(bundle.version) : '0.0.0';
  return bundle.release.length > 0 ? `${version}-${bundle.release.map(String).join('.')}` : version;
}

/** The `olm.package` version of the entry's bundle as the catalog writes it; absent without a bundle. */
export function versionText(bundle: ModelBundle): string | undefined {
  return bundle.properties?.packages[0]?.version;
}

/**
 * The package's channels that `olm.channel` blobs declare, by name: without the empty default channel the
 * model holds, when no blob declares it, for validation to reject.
 */
export function declaredChannels(pkg: ModelPackage): ModelChannel[] {
  return sortedValues(pkg.channels).filter((channel) => channel.blob !== undefined);
}

/** The map's values ordered by key, bytewise as Go sorts strings, so results do not depend on input order. */
export function sortedValues<T>(map: ReadonlyMap<string, T>): T[] {
  return sortInByteOrder([...map.keys()]).map((key) => map.get(key) as T);
}
