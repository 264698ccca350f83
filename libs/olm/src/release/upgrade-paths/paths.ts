import {
  type CatalogModel,
  declaredChannels,
  type ModelChannel,
  type ModelPackage,
  sortedValues,
  versionText,
} from '../../catalog/model/catalog-model.js';
import { byteOrder } from '../../go-compat/go-format.js';
import { nextUpgrade } from '../../graph/next-upgrade.js';
import {
  ALL_CHANNELS,
  type ChannelPaths,
  type PackagePaths,
  type PathBundle,
  type PathStep,
  type UpgradePath,
  type UpgradeRules,
} from './types.js';
import { nextUpgradeV1 } from './v1-choice.js';

/** Options of {@link upgradePaths}. */
export interface UpgradePathsOptions {
  /** Only this package. */
  readonly package?: string;
  /** Only this channel (for v1, also not the all-channels selection). */
  readonly channel?: string;
  /**
   * An earlier revision of the catalog: the bundles its channels listed that the catalog no longer lists in the
   * same channel stay installed on clusters, so they get paths too (with `inCatalog: false`).
   */
  readonly formerly?: CatalogModel;
}

/** What one resolution from an installed bundle gives: a step, or staying (with the resolver's error, if any). */
type Choice = { readonly step: PathStep } | { readonly step?: undefined; readonly error?: string };

/**
 * The upgrade path of every bundle a user may have installed, for every package and channel selection of the
 * catalog: the resolver's choice repeated until it stays. Under `v0` each channel is subscribed to on its own
 * and each step is {@link nextUpgrade} (OLM v0.46.0); under `v1` each channel is selected alone and all
 * channels together, and each step is {@link nextUpgradeV1} (operator-controller v1.11.0, `CatalogProvided`).
 * Installed bundles are the entries of the selected channels that carry a version, plus, with
 * `options.formerly`, the entries the earlier revision listed there and this one dropped. Names the catalog only
 * mentions in `replaces`/`skips` are left out: without their version the resolver's skipRange test cannot be
 * made, and a user reaches them only from a catalog that listed them, which `formerly` covers.
 */
export function upgradePaths(
  model: CatalogModel,
  rules: UpgradeRules,
  options: UpgradePathsOptions = {},
): PackagePaths[] {
  const out: PackagePaths[] = [];
  for (const pkg of sortedValues(model.packages)) {
    if (options.package !== undefined && pkg.name !== options.package) continue;
    const former = options.formerly?.packages.get(pkg.name);
    const channels: ChannelPaths[] = [];
    for (const selection of selections(pkg, rules)) {
      if (options.channel !== undefined && selection !== options.channel) continue;
      channels.push(channelPaths(model, pkg, former, selection, rules));
    }
    // A package without the channel asked for has nothing to report.
    if (channels.length > 0 || options.channel === undefined)
      out.push({ package: pkg.name, rules, channels });
  }
  return out;
}

/** The channel selections the rules allow: each channel, and for v1 also every channel at once. */
function selections(pkg: ModelPackage, rules: UpgradeRules): string[] {
  const names = declaredChannels(pkg).map((c) => c.name);
  return rules === 'v1' ? [ALL_CHANNELS, ...names] : names;
}

function selectedChannels(pkg: ModelPackage | undefined, selection: string): ModelChannel[] {
  if (pkg === undefined) return [];
  const all = declaredChannels(pkg);
  return selection === ALL_CHANNELS ? all : all.filter((c) => c.name === selection);
}

/** The entries no other entry of their channel replaces or skips, by name. */
export function channelHeads(channel: ModelChannel): string[] {
  const replaced = new Set<string>();
  for (const entry of channel.bundles.values()) {
    if (entry.replaces) replaced.add(entry.replaces);
    for (const skip of entry.skips) replaced.add(skip);
  }
  return [...channel.bundles.keys()].filter((name) => !replaced.has(name));
}

function channelPaths(
  model: CatalogModel,
  pkg: ModelPackage,
  former: ModelPackage | undefined,
  selection: string,
  rules: UpgradeRules,
): ChannelPaths {
  const channels = selectedChannels(pkg, selection);
  // OLM v0 follows the replaces chain to its head; OLM v1 has no chain: where users should end is the bundle a new
  // installation of the selection gets (the most preferred of all), so a bundle nothing replaces any more is not
  // a head to v1 — its users are stuck there.
  const fresh =
    rules === 'v1' ? nextUpgradeV1(channels, { name: '', version: '' }, 'SelfCertified') : undefined;
  const heads =
    rules === 'v1'
      ? fresh === undefined
        ? []
        : [fresh.name]
      : [...new Set(channels.flatMap(channelHeads))].sort(byteOrder);
  const installed = installedBundles(channels, selectedChannels(former, selection));
  const choose = memoized((from: PathBundle) =>
    rules === 'v0' ? chooseV0(model, pkg, selection, from) : chooseV1(channels, from),
  );
  const paths = [...installed.values()]
    .sort((a, b) => byteOrder(a.bundle.name, b.bundle.name))
    .map(({ bundle, inCatalog }) => walk(bundle, inCatalog, heads, choose));
  return { channel: selection, heads, paths };
}

interface Installed {
  readonly bundle: PathBundle;
  readonly inCatalog: boolean;
}

/** The versioned entries of the channels, then those of the former channels the catalog dropped. */
function installedBundles(
  channels: readonly ModelChannel[],
  formerChannels: readonly ModelChannel[],
): Map<string, Installed> {
  const installed = new Map<string, Installed>();
  const add = (list: readonly ModelChannel[], inCatalog: boolean) => {
    for (const channel of list) {
      for (const entry of channel.bundles.values()) {
        const version = versionText(entry);
        if (version === undefined || installed.has(entry.name)) continue;
        const bundle = { name: entry.name, version, deprecated: entry.deprecation !== undefined };
        installed.set(entry.name, { bundle, inCatalog });
      }
    }
  };
  add(channels, true);
  add(formerChannels, false);
  return installed;
}

function memoized(choose: (from: PathBundle) => Choice): (from: PathBundle) => Choice {
  const known = new Map<string, Choice>();
  return (from) => {
    let choice = known.get(from.name);
    if (choice === undefined) {
      choice = choose(from);
      known.set(from.name, choice);
    }
    return choice;
  };
}

/** OLM v0's resolution for a Subscription to the channel with `from` installed. */
function chooseV0(model: CatalogModel, pkg: ModelPackage, channel: string, from: PathBundle): Choice {
  try {
    const decision = nextUpgrade(model, pkg.name, channel, from.version, { installedName: from.name });
    if (decision.to === undefined) return {};
    const entry = pkg.channels.get(decision.to.channel)?.bundles.get(decision.to.name);
    const via = decision.candidates.find((c) => c.name === decision.to?.name)?.via ?? [];
    const to = {
      name: decision.to.name,
      version: decision.to.version ?? '',
      deprecated: entry?.deprecation !== undefined,
    };
    return { step: { to, via } };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** OLM v1's resolution for a ClusterExtension on the channels with `from` installed. */
function chooseV1(channels: readonly ModelChannel[], from: PathBundle): Choice {
  const choice = nextUpgradeV1(channels, from);
  if (choice === undefined || choice.name === from.name) return {};
  const to = { name: choice.name, version: choice.version, deprecated: choice.deprecated };
  return { step: { to, via: choice.via } };
}

/** Resolves again and again from the installed bundle until the resolver stays, fails or comes back. */
function walk(
  from: PathBundle,
  inCatalog: boolean,
  heads: readonly string[],
  choose: (from: PathBundle) => Choice,
): UpgradePath {
  const steps: PathStep[] = [];
  const passed = new Set([from.name]);
  let current = from;
  for (;;) {
    const choice = choose(current);
    if (choice.step === undefined) {
      if (choice.error !== undefined)
        return { from, inCatalog, steps, outcome: 'error', error: choice.error };
      return { from, inCatalog, steps, outcome: heads.includes(current.name) ? 'head' : 'stuck' };
    }
    steps.push(choice.step);
    if (passed.has(choice.step.to.name)) return { from, inCatalog, steps, outcome: 'cycle' };
    passed.add(choice.step.to.name);
    current = choice.step.to;
  }
}
