import {
  type CatalogModel,
  declaredChannels,
  type ModelBundle,
  type ModelChannel,
  type ModelPackage,
  sortedValues,
  versionText,
} from '../../catalog/model/catalog-model.js';
import { sortInByteOrder } from '../../go-compat/go-format.js';
import { buildUpgradeGraph } from '../../graph/upgrade-graph.js';
import { diffBundle, valueChange } from './diff-bundles.js';
import type { BundleDiff, BundleRef, CatalogDiff, ChannelDiff, EdgeChange, PackageDiff } from './types.js';

/**
 * What changed from `previous` to `next`, package by package, by meaning: default channels, deprecations,
 * channels with their entries, upgrade edges and skipRanges, and bundles with their image, properties (compared
 * canonically, so key order does not matter), manifests and related images. Packages in byte order.
 */
export function diffCatalogs(previous: CatalogModel, next: CatalogModel): CatalogDiff {
  const names = sortInByteOrder([...new Set([...previous.packages.keys(), ...next.packages.keys()])]);
  const packages: PackageDiff[] = [];
  for (const name of names) {
    const diff = diffPackage(name, previous, next);
    if (diff !== undefined) packages.push(diff);
  }
  return { packages };
}

function diffPackage(name: string, previous: CatalogModel, next: CatalogModel): PackageDiff | undefined {
  const was = previous.packages.get(name);
  const is = next.packages.get(name);
  if (was === undefined) return wholePackage(is as ModelPackage, 'added');
  if (is === undefined) return wholePackage(was, 'removed');
  const defaultChannel = valueChange(was.blob.defaultChannel, is.blob.defaultChannel);
  const deprecation = valueChange(was.deprecation, is.deprecation);
  const channelsBefore = channelsByName(was);
  const channelsAfter = channelsByName(is);
  const edgesBefore = packageEdges(previous, name);
  const edgesAfter = packageEdges(next, name);
  const channels: ChannelDiff[] = [];
  for (const [channelName, channel] of channelsAfter) {
    const before = channelsBefore.get(channelName);
    if (before === undefined) continue;
    const diff = diffChannel(
      before,
      channel,
      edgesBefore.get(channelName) ?? new Map(),
      edgesAfter.get(channelName) ?? new Map(),
    );
    if (diff !== undefined) channels.push(diff);
  }
  const bundlesBefore = bundlesOf(was);
  const bundlesAfter = bundlesOf(is);
  const bundles: BundleDiff[] = [];
  for (const [bundleName, bundle] of bundlesAfter) {
    const before = bundlesBefore.get(bundleName);
    if (before === undefined) continue;
    const diff = diffBundle(before, bundle);
    if (diff !== undefined) bundles.push(diff);
  }
  const diff: PackageDiff = {
    name,
    status: 'changed',
    ...(defaultChannel === undefined ? {} : { defaultChannel }),
    ...(deprecation === undefined ? {} : { deprecation }),
    channelsAdded: missingFrom(channelsAfter, channelsBefore),
    channelsRemoved: missingFrom(channelsBefore, channelsAfter),
    channels,
    bundlesAdded: bundleRefs(bundlesAfter, bundlesBefore),
    bundlesRemoved: bundleRefs(bundlesBefore, bundlesAfter),
    bundles,
  };
  const changed =
    defaultChannel !== undefined ||
    deprecation !== undefined ||
    diff.channelsAdded.length + diff.channelsRemoved.length + channels.length > 0 ||
    diff.bundlesAdded.length + diff.bundlesRemoved.length + bundles.length > 0;
  return changed ? diff : undefined;
}

/** A package that came or went: everything in it came or went with it. */
function wholePackage(pkg: ModelPackage, status: 'added' | 'removed'): PackageDiff {
  const side = (value: string | undefined) =>
    value ? (status === 'added' ? { to: value } : { from: value }) : undefined;
  const defaultChannel = side(pkg.blob.defaultChannel);
  const deprecation = side(pkg.deprecation);
  const channels = [...channelsByName(pkg).keys()];
  const bundles = bundleRefs(bundlesOf(pkg), new Map());
  return {
    name: pkg.name,
    status,
    ...(defaultChannel === undefined ? {} : { defaultChannel }),
    ...(deprecation === undefined ? {} : { deprecation }),
    channelsAdded: status === 'added' ? channels : [],
    channelsRemoved: status === 'removed' ? channels : [],
    channels: [],
    bundlesAdded: status === 'added' ? bundles : [],
    bundlesRemoved: status === 'removed' ? bundles : [],
    bundles: [],
  };
}

/** The channels `olm.channel` blobs declare, in byte order. */
function channelsByName(pkg: ModelPackage): Map<string, ModelChannel> {
  return new Map(declaredChannels(pkg).map((c) => [c.name, c]));
}

/** The package's bundles by name (one entry of each, with its blob), in byte order. */
function bundlesOf(pkg: ModelPackage): Map<string, ModelBundle> {
  const byName = new Map<string, ModelBundle>();
  for (const channel of pkg.channels.values()) {
    for (const entry of channel.bundles.values()) {
      const seen = byName.get(entry.name);
      // Every channel's entry of a bundle shares its blob; a deprecation may sit on any of them.
      if (entry.blob !== undefined && (seen === undefined || (!seen.deprecation && entry.deprecation)))
        byName.set(entry.name, entry);
    }
  }
  return new Map(sortedValues(byName).map((b) => [b.name, b]));
}

function missingFrom(a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>): string[] {
  return sortInByteOrder([...a.keys()].filter((k) => !b.has(k)));
}

function bundleRefs(a: ReadonlyMap<string, ModelBundle>, b: ReadonlyMap<string, unknown>): BundleRef[] {
  return missingFrom(a, b).map((name) => {
    const version = versionText(a.get(name) as ModelBundle);
    return version === undefined ? { name } : { name, version };
  });
}

function diffChannel(
  previous: ModelChannel,
  next: ModelChannel,
  edgesBefore: ReadonlyMap<string, EdgeChange>,
  edgesAfter: ReadonlyMap<string, EdgeChange>,
): ChannelDiff | undefined {
  const deprecation = valueChange(previous.deprecation, next.deprecation);
  const skipRanges = sortInByteOrder(
    [...next.bundles.keys()].filter((entry) => previous.bundles.has(entry)),
  ).flatMap((entry) => {
    const change = valueChange(previous.bundles.get(entry)?.skipRange, next.bundles.get(entry)?.skipRange);
    return change === undefined ? [] : [{ entry, ...change }];
  });
  const diff: ChannelDiff = {
    name: next.name,
    ...(deprecation === undefined ? {} : { deprecation }),
    entriesAdded: missingFrom(next.bundles, previous.bundles),
    entriesRemoved: missingFrom(previous.bundles, next.bundles),
    edgesAdded: missingFrom(edgesAfter, edgesBefore).map((k) => edgesAfter.get(k) as EdgeChange),
    edgesRemoved: missingFrom(edgesBefore, edgesAfter).map((k) => edgesBefore.get(k) as EdgeChange),
    skipRanges,
  };
  const changed =
    deprecation !== undefined ||
    diff.entriesAdded.length + diff.entriesRemoved.length > 0 ||
    diff.edgesAdded.length + diff.edgesRemoved.length + skipRanges.length > 0;
  return changed ? diff : undefined;
}

/** Each channel's upgrade edges, keyed `from`, `to`, kind (so keys sort as edges by from, to, then kind). */
function packageEdges(model: CatalogModel, pkg: string): Map<string, Map<string, EdgeChange>> {
  const byChannel = new Map<string, Map<string, EdgeChange>>();
  for (const channel of buildUpgradeGraph(model, pkg).channels) {
    const edges = new Map<string, EdgeChange>();
    for (const e of channel.edges) {
      edges.set(`${e.from}\u0000${e.to}\u0000${e.kind}`, { from: e.from, to: e.to, kind: e.kind });
    }
    byChannel.set(channel.name, edges);
  }
  return byChannel;
}
