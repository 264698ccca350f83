import {
  type CatalogModel,
  declaredChannels,
  type ModelBundle,
  type ModelChannel,
  sortedValues,
  versionText,
} from '../../catalog/model/catalog-model.js';
import { compareVersionReleases, type VersionRelease } from '../../catalog/model/version-release.js';
import { goQuote } from '../../go-compat/go-format.js';
import { tryParseRange } from '../../semver/range.js';
import { tryParseVersion } from '../../semver/version.js';
import { compareFindings, type Finding, type FindingSeverity } from '../findings.js';
import { channelHeads, upgradePaths } from './paths.js';
import {
  ALL_CHANNELS,
  type PackagePaths,
  pathEnd,
  selectionName,
  type UpgradePath,
  type UpgradeRules,
} from './types.js';
import { successorEdges } from './v1-choice.js';

/** The paths of a catalog under both sets of rules. */
export interface PathsByRules {
  readonly v0: readonly PackagePaths[];
  readonly v1: readonly PackagePaths[];
}

/** What a catalog change does to upgrade paths. */
export interface UpgradePathChanges {
  /** The previous catalog's paths, from its own entries. */
  readonly previous: PathsByRules;
  /** The next catalog's paths, from its entries and those the previous one listed in the same channels. */
  readonly next: PathsByRules;
  /** The `upgrade/...` findings, ordered by {@link compareFindings}. */
  readonly findings: readonly Finding[];
}

/** Options of {@link upgradePathChanges}. */
export interface UpgradePathChangesOptions {
  readonly package?: string;
  readonly channel?: string;
  /** The rules to work findings out under (default both); the paths of the others are left empty. */
  readonly rules?: readonly UpgradeRules[];
}

const RULES: readonly UpgradeRules[] = ['v0', 'v1'];

/**
 * The upgrade paths before and after a catalog change, and the `upgrade/...` findings about them. Each finding
 * is worked out under OLM v0's and OLM v1's rules; one that holds under both is reported once, and its message
 * ends with the rules it holds for: `(v0 and v1)`, `(v0 only)`, `(v1 only)`. The rules:
 *
 * - `upgrade/stranded`: from an installed bundle (an entry of the next catalog's channel, or of the previous
 *   one's that the next dropped), repeated upgrades do not end on a head of the selection; `error` when the
 *   previous catalog took it to a head or did not list it, `warning` when it was stranded there already.
 * - `upgrade/edge-removed`: the first step the previous catalog took from a bundle it listed, B -> C, is no
 *   longer an edge of the selected channels (C gone, or nothing in them makes C replace, skip or skipRange-include
 *   B), and from B the next catalog no longer reaches a head (`error`) or needs more steps (`warning`).
 * - `upgrade/head-moved-backwards`: a channel's single head has a lower version and release than the previous
 *   single head of that channel (`error`).
 * - `upgrade/skip-range-gap`: the single head of a channel has a valid skipRange, and an entry of the channel
 *   with a lower version is neither replaced, skipped nor included by the head, so its users reach the head in
 *   several steps or not at all; `warning` when new, `info` when the previous catalog had the same gap.
 * - `upgrade/deprecated-path`: every bundle the path moves to is deprecated (`warning`).
 * - `upgrade/channel-removed`: a channel of the previous catalog is gone (`error`); and
 *   `upgrade/default-channel-removed`: the previous default channel is gone, which Subscriptions without a
 *   channel follow (`error`, v0 only: OLM v1 selects every channel by default).
 *
 * Paths of the v1 all-channels selection have no `channel` in their findings; the message says "all channels".
 * With `options.rules` naming one set of rules, only findings holding under it are made, labelled `(v0)` or `(v1)`.
 */
export function upgradePathChanges(
  previous: CatalogModel,
  next: CatalogModel,
  options: UpgradePathChangesOptions = {},
): UpgradePathChanges {
  const filter = {
    ...(options.package === undefined ? {} : { package: options.package }),
    ...(options.channel === undefined ? {} : { channel: options.channel }),
  };
  const evaluated = RULES.filter((r) => options.rules === undefined || options.rules.includes(r));
  const pathsUnder = (model: CatalogModel, rules: UpgradeRules, formerly?: CatalogModel) =>
    evaluated.includes(rules)
      ? upgradePaths(model, rules, { ...filter, ...(formerly === undefined ? {} : { formerly }) })
      : [];
  const before: PathsByRules = { v0: pathsUnder(previous, 'v0'), v1: pathsUnder(previous, 'v1') };
  const after: PathsByRules = { v0: pathsUnder(next, 'v0', previous), v1: pathsUnder(next, 'v1', previous) };
  const found = new FindingsByRules(evaluated);
  for (const rules of evaluated) pathFindings(found, rules, before[rules], after[rules], next);
  catalogFindings(found, previous, next, after, options);
  return { previous: before, next: after, findings: found.list() };
}

type Draft = Omit<Finding, 'message'> & { readonly message: string };

/** Findings by everything but the rules they hold for, which the message names at its end. */
class FindingsByRules {
  readonly #found = new Map<string, { draft: Draft; rules: Set<UpgradeRules> }>();
  readonly #evaluated: readonly UpgradeRules[];

  constructor(evaluated: readonly UpgradeRules[]) {
    this.#evaluated = evaluated;
  }

  /** Records the finding for those of `holdsFor` that are evaluated. */
  add(draft: Draft, ...holdsFor: UpgradeRules[]): void {
    const rules = holdsFor.filter((r) => this.#evaluated.includes(r));
    if (rules.length === 0) return;
    const key = JSON.stringify([
      draft.rule,
      draft.severity,
      draft.package,
      draft.channel,
      draft.edge,
      draft.subject,
      draft.message,
    ]);
    const known = this.#found.get(key);
    if (known === undefined) this.#found.set(key, { draft, rules: new Set(rules) });
    else for (const r of rules) known.rules.add(r);
  }

  list(): Finding[] {
    return [...this.#found.values()]
      .map(({ draft, rules }) => ({
        ...draft,
        message: `${draft.message} (${rulesLabel(rules, this.#evaluated)})`,
      }))
      .sort(compareFindings);
  }
}

/** `v0 and v1`, `v0 only`, `v1 only`; just `v0` or `v1` when only one set of rules was evaluated. */
function rulesLabel(rules: ReadonlySet<UpgradeRules>, evaluated: readonly UpgradeRules[]): string {
  if (rules.size === 2) return 'v0 and v1';
  const only = [...rules][0] ?? 'v0';
  return evaluated.length === 1 ? only : `${only} only`;
}

function bundleLabel(path: UpgradePath): string {
  const where = path.inCatalog ? '' : ', no longer in the catalog';
  return `${path.from.version} (${path.from.name}${where})`;
}

/** Why the path does not reach a head. */
function strandedReason(path: UpgradePath): string {
  const end = pathEnd(path);
  switch (path.outcome) {
    case 'cycle':
      return `its upgrades loop back to ${end.name}`;
    case 'error':
      return `the resolver fails: ${path.error ?? ''}`;
    default:
      return path.steps.length === 0
        ? 'nothing replaces, skips or skipRange-includes it'
        : `its upgrades stop at ${end.version} (${end.name}), which nothing replaces, skips or skipRange-includes`;
  }
}

function byName(paths: readonly UpgradePath[]): Map<string, UpgradePath> {
  return new Map(paths.map((p) => [p.from.name, p]));
}

function pathFindings(
  found: FindingsByRules,
  rules: UpgradeRules,
  before: readonly PackagePaths[],
  after: readonly PackagePaths[],
  next: CatalogModel,
): void {
  const previousPackages = new Map(before.map((p) => [p.package, p]));
  for (const pkg of after) {
    const previousChannels = new Map(
      (previousPackages.get(pkg.package)?.channels ?? []).map((c) => [c.channel, c]),
    );
    for (const selection of pkg.channels) {
      const previousPaths = byName(previousChannels.get(selection.channel)?.paths ?? []);
      const where = {
        package: pkg.package,
        ...(selection.channel === ALL_CHANNELS ? {} : { channel: selection.channel }),
      };
      const at = `${pkg.package} ${selectionName(selection.channel)}`;
      const channels = selectedChannels(next, pkg.package, selection.channel);
      for (const path of selection.paths) {
        const old = previousPaths.get(path.from.name);
        if (path.outcome !== 'head') {
          const already = old !== undefined && old.outcome !== 'head';
          found.add(
            {
              rule: 'upgrade/stranded',
              severity: already ? 'warning' : 'error',
              ...where,
              subject: path.from.name,
              message: `${at}: ${bundleLabel(path)} has no upgrade path to a head: ${strandedReason(path)}${already ? ', as before' : ''}`,
            },
            rules,
          );
        }
        if (old !== undefined) edgeRemoved(found, rules, where, at, old, path, channels);
        if (path.steps.length > 0 && path.steps.every((s) => s.to.deprecated)) {
          found.add(
            {
              rule: 'upgrade/deprecated-path',
              severity: 'warning',
              ...where,
              subject: path.from.name,
              message: `${at}: every bundle the upgrades from ${bundleLabel(path)} move to is deprecated (${path.steps.map((s) => s.to.name).join(', ')})`,
            },
            rules,
          );
        }
      }
    }
  }
}

/** The next catalog's channels of the selection. */
function selectedChannels(model: CatalogModel, pkg: string, selection: string): ModelChannel[] {
  const modelPackage = model.packages.get(pkg);
  if (modelPackage === undefined) return [];
  return declaredChannels(modelPackage).filter((c) => selection === ALL_CHANNELS || c.name === selection);
}

function edgeRemoved(
  found: FindingsByRules,
  rules: UpgradeRules,
  where: { package: string; channel?: string },
  at: string,
  old: UpgradePath,
  path: UpgradePath,
  channels: readonly ModelChannel[],
): void {
  const first = old.steps[0];
  if (first === undefined || old.outcome !== 'head') return;
  const stillEdge = channels.some((c) => {
    const entry = c.bundles.get(first.to.name);
    return (
      entry !== undefined &&
      successorEdges(entry, old.from.name, tryParseVersion(old.from.version)).length > 0
    );
  });
  if (stillEdge) return;
  const reaches = path.outcome === 'head';
  if (reaches && path.steps.length <= old.steps.length) return;
  const now = reaches
    ? `the path to a head now takes ${path.steps.length} steps instead of ${old.steps.length}`
    : 'it no longer reaches a head';
  found.add(
    {
      rule: 'upgrade/edge-removed',
      severity: reaches ? 'warning' : 'error',
      ...where,
      edge: { from: old.from.name, to: first.to.name },
      subject: old.from.name,
      message: `${at}: the upgrade edge ${old.from.name} -> ${first.to.name} that users of ${old.from.version} took is gone, and ${now}`,
    },
    rules,
  );
}

/** A bundle's place in version order, as opm and OLM v0 compare bundles. */
function orderOf(bundle: ModelBundle): VersionRelease | undefined {
  return bundle.version === undefined ? undefined : { version: bundle.version, release: bundle.release };
}

/** The channel's single head, when it has exactly one with a version. */
function singleHead(channel: ModelChannel | undefined): ModelBundle | undefined {
  if (channel === undefined) return undefined;
  const heads = channelHeads(channel);
  const head = heads.length === 1 ? channel.bundles.get(heads[0] as string) : undefined;
  return head !== undefined && orderOf(head) !== undefined ? head : undefined;
}

/** The channel's single head with a valid skipRange, and the entries below it that the head does not reach. */
interface SkipRangeGaps {
  readonly head: ModelBundle;
  /** Entries with a lower version and release that the head neither replaces, skips nor includes, by name. */
  readonly gaps: ReadonlyMap<string, ModelBundle>;
}

function gapsOf(channel: ModelChannel | undefined): SkipRangeGaps | undefined {
  const head = singleHead(channel);
  const headOrder = head && orderOf(head);
  if (channel === undefined || head === undefined || headOrder === undefined) return undefined;
  if (tryParseRange(head.skipRange) === undefined) return undefined;
  const gaps = new Map<string, ModelBundle>();
  for (const entry of channel.bundles.values()) {
    const order = orderOf(entry);
    const version = versionText(entry);
    if (order === undefined || version === undefined || compareVersionReleases(order, headOrder) >= 0)
      continue;
    if (successorEdges(head, entry.name, tryParseVersion(version)).length === 0) gaps.set(entry.name, entry);
  }
  return { head, gaps };
}

function catalogFindings(
  found: FindingsByRules,
  previous: CatalogModel,
  next: CatalogModel,
  after: PathsByRules,
  options: UpgradePathChangesOptions,
): void {
  for (const pkg of sortedValues(previous.packages)) {
    if (options.package !== undefined && pkg.name !== options.package) continue;
    const nextPkg = next.packages.get(pkg.name);
    for (const channel of declaredChannels(pkg)) {
      if (options.channel !== undefined && channel.name !== options.channel) continue;
      const nextChannel = nextPkg?.channels.get(channel.name);
      if (nextChannel?.blob === undefined) {
        found.add(
          {
            rule: 'upgrade/channel-removed',
            severity: 'error',
            package: pkg.name,
            channel: channel.name,
            message: `${pkg.name} channel ${goQuote(channel.name)} is gone, and Subscriptions or ClusterExtensions naming it have nothing to upgrade to`,
          },
          'v0',
          'v1',
        );
        continue;
      }
      headMovedBackwards(found, pkg.name, channel, nextChannel);
      gapFindings(found, pkg.name, channel, nextChannel, after);
    }
    const defaultChannel = pkg.blob.defaultChannel;
    if (
      defaultChannel &&
      (options.channel === undefined || options.channel === defaultChannel) &&
      nextPkg?.channels.get(defaultChannel)?.blob === undefined
    ) {
      found.add(
        {
          rule: 'upgrade/default-channel-removed',
          severity: 'error',
          package: pkg.name,
          channel: defaultChannel,
          message: `${pkg.name} default channel ${goQuote(defaultChannel)} is gone, which Subscriptions without a channel follow`,
        },
        'v0',
      );
    }
  }
  if (options.channel !== undefined) return;
  // Gaps of channels new in the next catalog.
  for (const pkg of sortedValues(next.packages)) {
    if (options.package !== undefined && pkg.name !== options.package) continue;
    for (const channel of declaredChannels(pkg)) {
      if (previous.packages.get(pkg.name)?.channels.get(channel.name)?.blob !== undefined) continue;
      gapFindings(found, pkg.name, undefined, channel, after);
    }
  }
}

function headMovedBackwards(
  found: FindingsByRules,
  pkg: string,
  before: ModelChannel,
  after: ModelChannel,
): void {
  const oldHead = singleHead(before);
  const newHead = singleHead(after);
  if (oldHead === undefined || newHead === undefined) return;
  const oldOrder = orderOf(oldHead);
  const newOrder = orderOf(newHead);
  if (oldOrder === undefined || newOrder === undefined || compareVersionReleases(newOrder, oldOrder) >= 0)
    return;
  found.add(
    {
      rule: 'upgrade/head-moved-backwards',
      severity: 'error',
      package: pkg,
      channel: after.name,
      subject: newHead.name,
      message: `${pkg} channel ${goQuote(after.name)}: the head ${newHead.name} (${versionText(newHead)}) has a lower version than the previous head ${oldHead.name} (${versionText(oldHead)})`,
    },
    'v0',
    'v1',
  );
}

function gapFindings(
  found: FindingsByRules,
  pkg: string,
  before: ModelChannel | undefined,
  after: ModelChannel,
  paths: PathsByRules,
): void {
  const current = gapsOf(after);
  if (current === undefined || current.gaps.size === 0) return;
  const { head, gaps } = current;
  const oldGaps = gapsOf(before)?.gaps ?? new Map<string, ModelBundle>();
  for (const rules of RULES) {
    const channelPaths = paths[rules]
      .find((p) => p.package === pkg)
      ?.channels.find((c) => c.channel === after.name)?.paths;
    const byFrom = byName(channelPaths ?? []);
    for (const [name, entry] of gaps) {
      const path = byFrom.get(name);
      const severity: FindingSeverity = oldGaps.has(name) ? 'info' : 'warning';
      const reach =
        path === undefined || path.outcome !== 'head'
          ? 'do not reach the head'
          : `reach the head in ${path.steps.length} steps`;
      found.add(
        {
          rule: 'upgrade/skip-range-gap',
          severity,
          package: pkg,
          channel: after.name,
          subject: name,
          message: `${pkg} channel ${goQuote(after.name)}: the head ${head.name}'s skipRange ${goQuote(head.skipRange)} does not cover ${versionText(entry)} (${name}) and the head neither replaces nor skips it, so its users ${reach}`,
        },
        rules,
      );
    }
  }
}
