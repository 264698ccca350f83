import { readBundleObjects } from '../catalog/declcfg/properties.js';
import {
  type CatalogModel,
  type ModelBundle,
  sortedValues,
  versionText,
} from '../catalog/model/catalog-model.js';
import { buildUpgradeGraph, type EdgeKind } from '../graph/upgrade-graph.js';

/** A bundle at one end of an upgrade edge, with its manifests decoded on first use. */
export interface EdgeBundle {
  readonly name: string;
  /** The `olm.package` version, when the catalog has the bundle. */
  readonly version?: string;
  /** The bundle's image, when it names one. */
  readonly image?: string;
  /**
   * The bundle's manifests (its `olm.bundle.object` properties) as objects, the CSV among them; `undefined` when
   * the catalog carries none for it (an image-only bundle, or one that left the catalog), so that checks needing
   * them say they could not run rather than finding nothing.
   */
  objects(): readonly Record<string, unknown>[] | undefined;
}

/** One upgrade edge of a package, across every channel that has it. */
export interface CatalogEdge {
  readonly package: string;
  /** The channels that have the edge, in name order. */
  readonly channels: readonly string[];
  /** Every way the edge arises, in `replaces`, `skips`, `skipRange` order. */
  readonly kinds: readonly EdgeKind[];
  readonly from: EdgeBundle;
  readonly to: EdgeBundle;
}

const KIND_ORDER: readonly EdgeKind[] = ['replaces', 'skips', 'skipRange'];

/**
 * Every upgrade edge of every package of the catalog (replaces, skips and skipRange, as the upgrade graph draws
 * them), one per pair of bundles, packages and pairs in name order. An end the catalog carries no bundle for
 * (a release that pruned the bundle users are on) is taken from `previous`, the catalog as last released, when
 * that has it by package and bundle name, so that the edge checks still see its manifests.
 */
export function catalogEdges(model: CatalogModel, previous?: CatalogModel): CatalogEdge[] {
  const edges: CatalogEdge[] = [];
  for (const pkg of sortedValues(model.packages)) {
    const entries = bundleEntries(previous?.packages.get(pkg.name)?.channels.values() ?? []);
    for (const [name, entry] of bundleEntries(pkg.channels.values())) entries.set(name, entry);
    const pairs = new Map<
      string,
      { from: string; to: string; channels: Set<string>; kinds: Set<EdgeKind> }
    >();
    for (const channel of buildUpgradeGraph(model, pkg.name).channels) {
      for (const edge of channel.edges) {
        const key = `${edge.from}\u0000${edge.to}`;
        let pair = pairs.get(key);
        if (pair === undefined) {
          pair = { from: edge.from, to: edge.to, channels: new Set(), kinds: new Set() };
          pairs.set(key, pair);
        }
        pair.channels.add(channel.name);
        pair.kinds.add(edge.kind);
      }
    }
    // One EdgeBundle per bundle, so a bundle on several edges has its manifests decoded once.
    const bundles = new Map<string, EdgeBundle>();
    const bundle = (name: string): EdgeBundle => {
      let found = bundles.get(name);
      if (found === undefined) {
        found = edgeBundle(name, entries.get(name));
        bundles.set(name, found);
      }
      return found;
    };
    for (const pair of sortedValues(pairs)) {
      edges.push({
        package: pkg.name,
        channels: [...pair.channels].sort(),
        kinds: KIND_ORDER.filter((k) => pair.kinds.has(k)),
        from: bundle(pair.from),
        to: bundle(pair.to),
      });
    }
  }
  return edges;
}

/** Every bundle the catalog carries, by package and then by bundle name. */
export function catalogBundles(model: CatalogModel): Map<string, Map<string, ModelBundle>> {
  return new Map(sortedValues(model.packages).map((pkg) => [pkg.name, bundleEntries(pkg.channels.values())]));
}

/** The bundles of a package's channels that the catalog carries, by name. */
function bundleEntries(
  channels: Iterable<{ readonly bundles: ReadonlyMap<string, ModelBundle> }>,
): Map<string, ModelBundle> {
  const entries = new Map<string, ModelBundle>();
  for (const channel of channels) {
    for (const entry of channel.bundles.values()) {
      if (entry.blob !== undefined) entries.set(entry.name, entry);
    }
  }
  return entries;
}

function edgeBundle(name: string, entry: ModelBundle | undefined): EdgeBundle {
  // null: not decoded yet; undefined: the catalog carries no manifests for the bundle.
  let decoded: readonly Record<string, unknown>[] | undefined | null = null;
  const blob = entry?.blob;
  const version = entry === undefined ? undefined : versionText(entry);
  return {
    name,
    ...(version === undefined ? {} : { version }),
    ...(blob?.image ? { image: blob.image } : {}),
    objects() {
      if (decoded === null) {
        const objects = blob === undefined ? [] : readBundleObjects(blob).objects;
        decoded =
          objects.length === 0 ? undefined : objects.map((o) => JSON.parse(o) as Record<string, unknown>);
      }
      return decoded;
    },
  };
}

/**
 * The edge's bundles whose manifests the catalog does not carry, `from` first, and the words an edge check that
 * cannot read them says: "<a> carries no manifests", "<a> and <b> carry no manifests".
 */
export function bundlesWithoutManifests(edge: CatalogEdge): {
  readonly names: string[];
  readonly phrase: string;
} {
  const names = [edge.from, edge.to].filter((b) => b.objects() === undefined).map((b) => b.name);
  return { names, phrase: `${names.join(' and ')} ${names.length === 1 ? 'carries' : 'carry'} no manifests` };
}
