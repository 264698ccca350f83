import { formatValidationResults } from '../catalog/format.js';
import { loadCatalog } from '../catalog/load.js';
import { validateCatalog } from '../catalog/validate.js';
import { RegistryError } from './errors.js';
import { RegistryQueries } from './queries.js';
import { type BuildRegistryModelOptions, buildRegistryModel, type RegistryModel } from './registry-model.js';

/** A catalog ready to serve. */
export interface LoadedRegistry {
  readonly model: RegistryModel;
  readonly queries: RegistryQueries;
  readonly packages: number;
  readonly bundles: number;
}

/**
 * Loads a file-based catalog directory for serving: load, validate as `opm validate` does (opm's serve refuses
 * an invalid catalog too), and convert to the registry model.
 *
 * @throws CatalogLoadError when a file cannot be read or decoded
 * @throws RegistryError `REGISTRY_CATALOG_INVALID` with opm's validation message, or a conversion error
 */
export async function loadRegistry(
  dir: string,
  options: BuildRegistryModelOptions = {},
): Promise<LoadedRegistry> {
  const catalog = await loadCatalog(dir);
  const errors = validateCatalog(catalog, { warnings: false }).filter((r) => r.level === 'error');
  if (errors.length > 0) {
    throw new RegistryError(
      'REGISTRY_CATALOG_INVALID',
      `${dir}: the catalog is invalid, refusing to serve it:\n${formatValidationResults(errors)}`,
    );
  }
  const model = buildRegistryModel(catalog, options);
  return {
    model,
    queries: new RegistryQueries(model),
    packages: catalog.packages.length,
    bundles: catalog.bundles.length,
  };
}
