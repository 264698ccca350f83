import { readBundleObjects } from '../../catalog/declcfg/properties.js';
import type { CatalogModel } from '../../catalog/model/catalog-model.js';
import { type CatalogEdge, catalogBundles } from '../edges.js';
import type { Finding } from '../findings.js';
import { celFindingsOfBundle, celFindingsOfEdge } from './findings.js';

/**
 * The CEL family as the gate runs it: each bundle the release adds is checked once on its own (its CRDs' rules
 * compile, its examples pass them), and each upgrade edge it adds on the previous bundle's examples.
 */
export const celCheck = {
  family: 'cel',
  catalog(previous: CatalogModel, next: CatalogModel): Finding[] {
    const before = catalogBundles(previous);
    const findings: Finding[] = [];
    for (const [pkg, bundles] of catalogBundles(next)) {
      for (const [name, entry] of bundles) {
        if (entry.blob === undefined || before.get(pkg)?.has(name)) continue;
        const objects = readBundleObjects(entry.blob).objects.map(
          (o) => JSON.parse(o) as Record<string, unknown>,
        );
        if (objects.length > 0)
          findings.push(...celFindingsOfBundle(objects, { package: pkg, bundle: name }));
      }
    }
    return findings;
  },
  edge: (edge: CatalogEdge): Finding[] => celFindingsOfEdge(edge),
} as const;
