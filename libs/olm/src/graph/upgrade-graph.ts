import {
  type CatalogModel,
  declaredChannels,
  type ModelBundle,
  versionText,
} from '../catalog/model/catalog-model.js';
import { checkReplacesChain } from '../catalog/model/replaces-chain.js';
import { rangeIncludes, tryParseRange, type VersionRange } from '../semver/range.js';
import type { Version } from '../semver/version.js';
import { GraphError } from './errors.js';

/** How an upgrade edge arises. */
export type EdgeKind = 'replaces' | 'skips' | 'skipRange';

/** A directed upgrade edge `from` (installed) → `to` (upgrade target) inside one channel. */
export interface UpgradeEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: EdgeKind;
  readonly channel: string;
  /** For `skipRange` edges, the range that includes `from`'s version. */
  readonly range?: string;
}

/** One entry of a channel with its bundle's version. */
export interface GraphNode {
  readonly name: string;
  /** The `olm.package` version text of the bundle, when the catalog has the bundle. */
  readonly version?: string;
  readonly parsedVersion?: Version;
  /** The model's channel entry: its edges, and its bundle when the catalog has it. */
  readonly entry: ModelBundle;
  /** The parsed skipRange; `undefined` when absent or invalid (OLM ignores an invalid skipRange). */
  readonly skipRange?: VersionRange;
}

/** The upgrade graph of one channel. */
export interface ChannelGraph {
  readonly name: string;
  readonly isDefault: boolean;
  /** The entry no other entry replaces or skips, when there is exactly one. */
  readonly head?: string;
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly UpgradeEdge[];
}

/** The upgrade graph of a package: one graph per channel, channels in name order. */
export interface PackageGraph {
  readonly package: string;
  readonly defaultChannel: string;
  readonly channels: readonly ChannelGraph[];
}

/**
 * Builds the upgrade graph of a package of the catalog's model from its channels: an edge from each entry's
 * `replaces` target, from every `skips` element, and from every entry of the same channel whose version falls
 * in the entry's `skipRange` (blang semantics). Targets outside the channel still get edges (the chain's tail
 * usually replaces a bundle that left the catalog).
 *
 * @throws GraphError `GRAPH_UNKNOWN_PACKAGE`
 */
export function buildUpgradeGraph(model: CatalogModel, pkg: string): PackageGraph {
  const modelPackage = model.packages.get(pkg);
  if (modelPackage === undefined) throw new GraphError('GRAPH_UNKNOWN_PACKAGE', `unknown package "${pkg}"`);
  const { defaultChannel } = modelPackage.blob;
  const channels = declaredChannels(modelPackage).map((c): ChannelGraph => {
    const nodes = [...c.bundles.values()].map(graphNode);
    const edges: UpgradeEdge[] = [];
    for (const n of nodes) {
      if (n.entry.replaces)
        edges.push({ from: n.entry.replaces, to: n.name, kind: 'replaces', channel: c.name });
      for (const s of n.entry.skips) edges.push({ from: s, to: n.name, kind: 'skips', channel: c.name });
      if (n.skipRange) {
        for (const m of nodes) {
          if (m.name !== n.name && m.parsedVersion && rangeIncludes(n.skipRange, m.parsedVersion)) {
            edges.push({
              from: m.name,
              to: n.name,
              kind: 'skipRange',
              channel: c.name,
              range: n.skipRange.source,
            });
          }
        }
      }
    }
    const chain = checkReplacesChain(nodes.map((n) => n.entry));
    return {
      name: c.name,
      isDefault: c.name === defaultChannel,
      ...(chain.head === undefined ? {} : { head: chain.head }),
      nodes,
      edges,
    };
  });
  return { package: pkg, defaultChannel, channels };
}

function graphNode(entry: ModelBundle): GraphNode {
  const version = versionText(entry);
  const skipRange = entry.skipRange ? tryParseRange(entry.skipRange) : undefined;
  return {
    name: entry.name,
    entry,
    ...(version === undefined ? {} : { version }),
    ...(entry.version === undefined ? {} : { parsedVersion: entry.version }),
    ...(skipRange === undefined ? {} : { skipRange }),
  };
}
