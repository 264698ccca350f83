import {
  type CatalogModel,
  declaredChannels,
  type ModelBundle,
  type ModelChannel,
  type ModelPackage,
  versionText,
} from '../catalog/model/catalog-model.js';
import { goQuote } from '../go-compat/go-format.js';
import { rangeIncludes, tryParseRange } from '../semver/range.js';
import { compareVersions, formatVersion, tryParseVersion, type Version } from '../semver/version.js';
import { sortChannel } from './channel-order.js';
import { GraphError } from './errors.js';
import type { EdgeKind } from './upgrade-graph.js';

/** Options of {@link nextUpgrade}. */
export interface NextUpgradeOptions {
  /**
   * The installed CSV's name (`status.installedCSV`). By default it is the bundle of the package whose version
   * equals `installedVersion`; pass it when the installed bundle is no longer in the catalog or versions repeat.
   */
  readonly installedName?: string;
}

/** An entry that has a direct edge from the installed version, in the order OLM prefers them. */
export interface UpgradeCandidate {
  readonly name: string;
  readonly version?: string;
  readonly channel: string;
  /** Every edge kind that connects the installed bundle to this entry. */
  readonly via: readonly EdgeKind[];
}

/** The decision OLM would take. */
export interface UpgradeDecision {
  /** The installed bundle: its name (when known) and version. */
  readonly from: { readonly name?: string; readonly version: string };
  /** The bundle OLM moves to, or `undefined` when it stays. */
  readonly to?: { readonly name: string; readonly version?: string; readonly channel: string };
  /**
   * `replaces` / `skips` / `skipRange`: the edge that selects `to` (the first of several, in that order);
   * `up-to-date`: the installed bundle heads the channel; `no-edge`: nothing replaces, skips or skipRange-includes
   * the installed bundle, so OLM stays (the non-transitive skips trap when `trappedBy` is set).
   */
  readonly reason: EdgeKind | 'up-to-date' | 'no-edge';
  /** One sentence explaining the decision. */
  readonly explanation: string;
  /** All entries with a direct edge from the installed bundle, best first. */
  readonly candidates: readonly UpgradeCandidate[];
  /** Entries that skip the installed bundle but are not candidates because they are themselves skipped. */
  readonly trappedBy?: readonly string[];
}

interface Entry {
  readonly entry: ModelBundle;
  readonly channel: string;
}

/**
 * What OLM v0 does for a Subscription with an installed CSV (`getSubscriptionVariables`, OLM v0.46.0): it orders
 * each channel with {@link sortChannel} (default channel first when `channel` is `''`, then the others by name),
 * keeps the entries whose `skipRange` includes the installed version, whose `replaces` is the installed CSV, or
 * whose `skips` list it, and picks the first — the entry closest to the channel head that has a direct edge.
 * Entries skipped by anyone are never candidates, so skips are not transitive. An invalid skipRange is ignored,
 * as on the cluster. Dependency resolution is not modelled.
 *
 * @param channel the Subscription's `spec.channel`; `''` means every channel of the package
 * @throws GraphError for an unknown package or channel, an invalid or ambiguous installed version, and OLM's own
 *   channel-ordering errors (no head, cycle, several replacement chains), which fail the resolution on a cluster
 */
export function nextUpgrade(
  model: CatalogModel,
  pkg: string,
  channel: string,
  installedVersion: string,
  options: NextUpgradeOptions = {},
): UpgradeDecision {
  const modelPackage = model.packages.get(pkg);
  if (modelPackage === undefined) {
    throw new GraphError('GRAPH_UNKNOWN_PACKAGE', `unknown package ${goQuote(pkg)}`);
  }
  const current = parseInstalledVersion(installedVersion);
  const versions = bundleVersionsOf(modelPackage);
  const installed: Installed = {
    name: options.installedName ?? findInstalled(pkg, versions, current),
    version: current,
    versionText: installedVersion,
  };
  const channels = subscribedChannels(modelPackage, channel);
  const ordered = orderedEntries(pkg, channels);
  const candidates = upgradeCandidates(ordered, installed, versions);
  const best = candidates[0];
  if (best !== undefined) return upgradeTo(best, installed, channels, ordered, candidates);
  return stayOn(installed, channels, ordered, candidates);
}

/** The installed bundle: its name, when known, and its version. */
interface Installed {
  readonly name: string | undefined;
  readonly version: Version;
  /** The version as the caller gave it. */
  readonly versionText: string;
}

function parseInstalledVersion(installedVersion: string): Version {
  const current = tryParseVersion(installedVersion);
  if (current === undefined) {
    throw new GraphError(
      'GRAPH_INVALID_VERSION',
      `installed version ${goQuote(installedVersion)} is not a valid semver version`,
    );
  }
  return current;
}

/** The `olm.package` version of each bundle of the package, by bundle name. */
function bundleVersionsOf(pkg: ModelPackage): Map<string, string> {
  const versions = new Map<string, string>();
  for (const channel of pkg.channels.values()) {
    for (const bundle of channel.bundles.values()) {
      const version = versionText(bundle);
      if (version !== undefined) versions.set(bundle.name, version);
    }
  }
  return versions;
}

/** The channels the Subscription follows: the named one, or all of them with the default channel first. */
function subscribedChannels(pkg: ModelPackage, channel: string): ModelChannel[] {
  const channels = declaredChannels(pkg).filter((c) => channel === '' || c.name === channel);
  if (channels.length === 0) {
    const what =
      channel === ''
        ? `package ${goQuote(pkg.name)} has no channels`
        : `unknown channel ${goQuote(channel)} of package ${goQuote(pkg.name)}`;
    throw new GraphError('GRAPH_UNKNOWN_CHANNEL', what);
  }
  const isDefault = (c: ModelChannel): boolean => c.name === pkg.blob.defaultChannel;
  return [...channels.filter(isDefault), ...channels.filter((c) => !isDefault(c))];
}

/** Every entry of the channels, channel by channel, each channel from its head down (OLM's order). */
function orderedEntries(pkg: string, channels: readonly ModelChannel[]): Entry[] {
  const ordered: Entry[] = [];
  for (const c of channels) {
    for (const name of sortChannel(pkg, c.name, [...c.bundles.values()])) {
      const entry = c.bundles.get(name);
      if (entry !== undefined) ordered.push({ entry, channel: c.name });
    }
  }
  return ordered;
}

/** The entries with a direct edge from the installed bundle, in OLM's order, with every edge kind they have. */
function upgradeCandidates(
  ordered: readonly Entry[],
  installed: Installed,
  versions: ReadonlyMap<string, string>,
): UpgradeCandidate[] {
  const installedName = installed.name;
  const candidates: UpgradeCandidate[] = [];
  for (const { entry, channel } of ordered) {
    if (entry.name === installedName) continue;
    const via: EdgeKind[] = [];
    if (installedName !== undefined && entry.replaces === installedName) via.push('replaces');
    if (installedName !== undefined && entry.skips.includes(installedName)) via.push('skips');
    const range = entry.skipRange ? tryParseRange(entry.skipRange) : undefined;
    if (range && rangeIncludes(range, installed.version)) via.push('skipRange');
    if (via.length === 0) continue;
    const version = versions.get(entry.name);
    candidates.push({ name: entry.name, channel, via, ...(version === undefined ? {} : { version }) });
  }
  return candidates;
}

function fromOf(installed: Installed): UpgradeDecision['from'] {
  return installed.name === undefined
    ? { version: installed.versionText }
    : { name: installed.name, version: installed.versionText };
}

/** The decision to move to the best candidate, explained by the edge that selects it. */
function upgradeTo(
  best: UpgradeCandidate,
  installed: Installed,
  channels: readonly ModelChannel[],
  ordered: readonly Entry[],
  candidates: UpgradeCandidate[],
): UpgradeDecision {
  const reason = best.via[0]!; // a candidate has at least one edge
  const current = formatVersion(installed.version);
  const skipRange = () =>
    channels.flatMap((c) => [...c.bundles.values()]).find((e) => e.name === best.name)?.skipRange ?? '';
  const edge =
    reason === 'replaces'
      ? `replaces ${installed.name}`
      : reason === 'skips'
        ? `skips ${installed.name}`
        : `has skipRange ${goQuote(skipRange())} including ${current}`;
  const position = ordered.findIndex((o) => o.entry.name === best.name && o.channel === best.channel);
  const closest =
    position === 0 || ordered[position - 1]?.channel !== best.channel
      ? 'the head'
      : 'the entry closest to the head';
  return {
    from: fromOf(installed),
    to: {
      name: best.name,
      channel: best.channel,
      ...(best.version === undefined ? {} : { version: best.version }),
    },
    reason,
    explanation: `${best.name} ${edge}; it is ${closest} of channel ${goQuote(best.channel)} with a direct edge from the installed bundle`,
    candidates,
  };
}

/**
 * The decision to stay: the installed bundle heads a channel, or nothing has a direct edge from it (when entries
 * do point at it, they are skipped themselves: the non-transitive skips trap).
 */
function stayOn(
  installed: Installed,
  channels: readonly ModelChannel[],
  ordered: readonly Entry[],
  candidates: UpgradeCandidate[],
): UpgradeDecision {
  const installedName = installed.name;
  const from = fromOf(installed);
  const headed = channels.find((c) => {
    const head = ordered.find((o) => o.channel === c.name)?.entry.name;
    return head !== undefined && head === installedName;
  });
  if (headed) {
    return {
      from,
      reason: 'up-to-date',
      explanation: `${installedName} is the head of channel ${goQuote(headed.name)}`,
      candidates,
    };
  }
  const trappedBy = channels
    .flatMap((c) => [...c.bundles.values()])
    .filter(
      (e) => installedName !== undefined && (e.skips.includes(installedName) || e.replaces === installedName),
    )
    .map((e) => e.name);
  const current = formatVersion(installed.version);
  const who = installedName ?? current;
  return {
    from,
    reason: 'no-edge',
    explanation:
      trappedBy.length > 0
        ? `only ${trappedBy.join(', ')} point at ${who}, and they are skipped by other entries, so OLM never offers them: skips are not transitive`
        : `no entry replaces or skips ${who} or has a skipRange including ${current}`,
    candidates,
    ...(trappedBy.length > 0 ? { trappedBy } : {}),
  };
}

function findInstalled(pkg: string, versions: Map<string, string>, current: Version): string | undefined {
  const matches = [...versions.entries()].filter(([, v]) => {
    const parsed = tryParseVersion(v);
    return parsed !== undefined && compareVersions(parsed, current) === 0 && v === formatVersion(current);
  });
  if (matches.length > 1) {
    throw new GraphError(
      'GRAPH_AMBIGUOUS_INSTALLED',
      `several bundles of package ${goQuote(pkg)} have version ${formatVersion(current)}: ${matches.map(([n]) => n).join(', ')}; pass installedName`,
    );
  }
  return matches[0]?.[0];
}
