import { readBundleObjects } from '../../catalog/declcfg/properties.js';
import type { BundleBlob } from '../../catalog/declcfg/types.js';
import { type CatalogModel, sortedValues } from '../../catalog/model/catalog-model.js';
import type { CatalogEdge } from '../edges.js';
import type { Finding } from '../findings.js';
import { celFindingsOfBundle, celFindingsOfEdge } from './findings.js';

/** The bundle blobs of each package of the catalog, by name. */
function bundlesOf(model: CatalogModel): Map<string, Map<string, BundleBlob>> {
  const packages = new Map<string, Map<string, BundleBlob>>();
  for (const pkg of sortedValues(model.packages)) {
    const bundles = new Map<string, BundleBlob>();
    for (const channel of pkg.channels.values()) {
      for (const entry of channel.bundles.values()) if (entry.blob) bundles.set(entry.name, entry.blob);
    }
    packages.set(pkg.name, bundles);
  }
  return packages;
}

/**
 * The CEL family as the gate runs it: each bundle the release adds is checked once on its own (its CRDs' rules
 * compile, its examples pass them), and each upgrade edge it adds on the previous bundle's examples.
 */
export const celCheck = {
  family: 'cel',
  catalog(previous: CatalogModel, next: CatalogModel): Finding[] {
    const before = bundlesOf(previous);
    const findings: Finding[] = [];
    for (const [pkg, bundles] of bundlesOf(next)) {
      for (const [name, blob] of bundles) {
        if (before.get(pkg)?.has(name)) continue;
        const objects = readBundleObjects(blob).objects.map((o) => JSON.parse(o) as Record<string, unknown>);
        if (objects.length > 0)
          findings.push(...celFindingsOfBundle(objects, { package: pkg, bundle: name }));
      }
    }
    return findings;
  },
  edge: (edge: CatalogEdge): Finding[] => celFindingsOfEdge(edge),
} as const;
