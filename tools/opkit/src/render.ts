import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Catalog,
  type CatalogFormat,
  emptyCatalog,
  formatOlmBundleJson,
  loadCatalog,
  parseCatalogContent,
  renderBundle,
  serializeCatalog,
} from '@opkit/olm';

/** A bundle directory has its annotations where operator-sdk and opm look for them. */
function isBundleDirectory(dir: string): boolean {
  return existsSync(join(dir, 'metadata', 'annotations.yaml'));
}

async function load(source: string): Promise<Catalog> {
  if (isBundleDirectory(source)) {
    return parseCatalogContent(formatOlmBundleJson(renderBundle(source)), source);
  }
  return loadCatalog(source);
}

/**
 * `opkit catalog render`: file-based catalog directories and bundle directories, merged into one stream as
 * `opm render -o json|yaml` writes it (same order, same bytes).
 */
export async function renderSources(sources: readonly string[], format: CatalogFormat): Promise<string> {
  const merged = emptyCatalog();
  for (const source of sources) {
    const catalog = await load(source);
    merged.packages.push(...catalog.packages);
    merged.channels.push(...catalog.channels);
    merged.bundles.push(...catalog.bundles);
    merged.deprecations.push(...catalog.deprecations);
    merged.others.push(...catalog.others);
  }
  return serializeCatalog(merged, { format });
}
