import type { ModelBundle, ModelChannel } from '../../catalog/model/catalog-model.js';
import { versionText } from '../../catalog/model/catalog-model.js';
import {
  compareVersionReleases,
  parseRelease,
  type VersionRelease,
} from '../../catalog/model/version-release.js';
import { byteOrder } from '../../go-compat/go-format.js';
import type { EdgeKind } from '../../graph/upgrade-graph.js';
import { rangeIncludes, tryParseRange } from '../../semver/range.js';
import { tryParseVersion } from '../../semver/version.js';

/**
 * How OLM v1 limits upgrades (`spec.source.catalog.upgradeConstraintPolicy`): `CatalogProvided` follows the
 * catalog's replaces/skips/skipRange edges, `SelfCertified` lets the extension move to any version.
 */
export type UpgradeConstraintPolicy = 'CatalogProvided' | 'SelfCertified';

/** The installed bundle of a ClusterExtension, as its status records it (`status.install.bundle`). */
export interface InstalledBundle {
  readonly name: string;
  /** The bundle's `olm.package` version as the catalog wrote it, build metadata included. */
  readonly version: string;
}

/** The bundle OLM v1 resolves to and how it is connected to the installed one. */
export interface V1Choice {
  readonly name: string;
  readonly version: string;
  /** The edges from the installed bundle to it in the selected channels; empty when it is the installed bundle. */
  readonly via: readonly EdgeKind[];
  readonly deprecated: boolean;
}

/**
 * The legacy registry+v1 reading of a version (operator-controller v1.11.0 `bundleutil.ParseLegacyVersionRelease`,
 * used while the `BundleReleaseSupport` feature gate is off, its default): build metadata that parses as a release
 * becomes the release and leaves the version; other build metadata stays part of the version.
 */
export function legacyVersionRelease(version: string): VersionRelease | undefined {
  const parsed = tryParseVersion(version);
  if (parsed === undefined) return undefined;
  if (parsed.build.length === 0) return { version: parsed, release: [] };
  try {
    const release = parseRelease(parsed.build.join('.'));
    if (release.length > 0) return { version: { ...parsed, build: [] }, release };
  } catch {
    // not a release: the build metadata stays on the version
  }
  return { version: parsed, release: [] };
}

interface Candidate {
  readonly name: string;
  readonly version: string;
  readonly order: VersionRelease | undefined;
  readonly via: EdgeKind[];
  readonly deprecated: boolean;
}

/**
 * The bundle OLM v1 installs next for a ClusterExtension with `installed` and the given channels selected, as
 * operator-controller v1.11.0 resolves it (`resolve.CatalogResolver.Resolve` with `filter.SuccessorsOf` and
 * `compare.ByDeprecationFunc` / `compare.ByVersionAndRelease`):
 *
 * - candidates are the bundles of the selected channels that are successors of the installed bundle in one of
 *   those channels (an entry that replaces it, lists it in `skips`, or whose valid `skipRange` includes its
 *   version; there is no walk along the replaces chain and no "skipped entries are never offered" rule), plus any
 *   bundle with exactly the installed version and release — the installed bundle itself; with `SelfCertified`
 *   every bundle of the selected channels is a candidate;
 * - they are sorted with bundle-deprecated ones last, then by version and release, highest first, and the first
 *   one wins. So OLM v1 never moves to a lower version than the installed one unless the installed bundle is
 *   deprecated and a lower successor is not.
 *
 * Bundles of equal rank keep the catalog's order on a cluster; here the tie goes to the first name in Go byte
 * order, so that the result does not depend on file order. Catalog priorities and several catalogs are not
 * modelled: the choice is within one catalog.
 *
 * @returns the chosen bundle (the installed one when nothing ranks higher), or `undefined` when the selected
 *   channels hold no candidate at all
 */
export function nextUpgradeV1(
  channels: readonly ModelChannel[],
  installed: InstalledBundle,
  policy: UpgradeConstraintPolicy = 'CatalogProvided',
): V1Choice | undefined {
  const installedOrder = legacyVersionRelease(installed.version);
  const installedVersion = tryParseVersion(installed.version);
  const candidates = new Map<string, Candidate>();
  for (const channel of channels) {
    for (const entry of channel.bundles.values()) {
      const version = versionText(entry);
      if (version === undefined) continue; // no bundle blob: nothing OLM v1 could install
      const via = policy === 'CatalogProvided' ? successorEdges(entry, installed.name, installedVersion) : [];
      const order = legacyVersionRelease(version);
      const sameVersion =
        installedOrder !== undefined &&
        order !== undefined &&
        compareVersionReleases(order, installedOrder) === 0;
      if (policy === 'CatalogProvided' && via.length === 0 && !sameVersion) continue;
      const known = candidates.get(entry.name);
      const edges = known === undefined ? via : [...known.via, ...via.filter((k) => !known.via.includes(k))];
      candidates.set(entry.name, {
        name: entry.name,
        version,
        order,
        via: edges,
        deprecated: entry.deprecation !== undefined,
      });
    }
  }
  const best = [...candidates.values()].sort(byV1Preference)[0];
  if (best === undefined) return undefined;
  const via = best.name === installed.name ? [] : sortKinds(best.via);
  return { name: best.name, version: best.version, via, deprecated: best.deprecated };
}

/** How the entry succeeds the installed bundle in its channel (replaces, skips, skipRange); empty when it does not. */
export function successorEdges(
  entry: ModelBundle,
  installedName: string,
  installedVersion: ReturnType<typeof tryParseVersion>,
): EdgeKind[] {
  const via: EdgeKind[] = [];
  if (entry.replaces === installedName) via.push('replaces');
  if (entry.skips.includes(installedName)) via.push('skips');
  const range = entry.skipRange ? tryParseRange(entry.skipRange) : undefined;
  if (range !== undefined && installedVersion !== undefined && rangeIncludes(range, installedVersion)) {
    via.push('skipRange');
  }
  return via;
}

const KIND_ORDER: readonly EdgeKind[] = ['replaces', 'skips', 'skipRange'];

function sortKinds(kinds: readonly EdgeKind[]): EdgeKind[] {
  return KIND_ORDER.filter((k) => kinds.includes(k));
}

/** Not deprecated first, then highest version and release (an unreadable version last), then name. */
function byV1Preference(a: Candidate, b: Candidate): number {
  if (a.deprecated !== b.deprecated) return a.deprecated ? 1 : -1;
  if (a.order === undefined || b.order === undefined) {
    if (a.order !== b.order) return a.order === undefined ? 1 : -1;
  } else {
    const byVersion = compareVersionReleases(b.order, a.order);
    if (byVersion !== 0) return byVersion;
  }
  return byteOrder(a.name, b.name);
}
