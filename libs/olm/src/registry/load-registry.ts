import { formatValidationResults } from '../catalog/format.js';
import { loadCatalog } from '../catalog/load.js';
import { validateCatalog } from '../catalog/validate.js';
import { goQuote } from '../semver/go-quote.js';
import { RegistryError } from './errors.js';
import { RegistryQueries } from './queries.js';
import { type BuildRegistryModelOptions, buildRegistryModel, type RegistryModel } from './registry-model.js';

const META_KEY_COMPONENT = /^[a-zA-Z0-9][a-zA-Z0-9._-]*$/;

/**
 * opm's serve cache stores blobs of other schemas by schema and package, and refuses names it cannot use as a
 * key (`invalid custom schema meta: …`).
 */
function checkCustomSchemaBlob(schema: string, pkg: string): void {
  const check = (what: string, value: string): void => {
    if (META_KEY_COMPONENT.test(value)) return;
    throw new RegistryError(
      'REGISTRY_CATALOG_INVALID',
      `invalid custom schema meta: invalid ${what} ${goQuote(value)}: must match ${META_KEY_COMPONENT.source}`,
    );
  };
  check('schema', schema);
  if (pkg !== '') check('packageName', pkg);
}

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
  for (const other of catalog.others) checkCustomSchemaBlob(other.schema, other.package);
  const model = buildRegistryModel(catalog, options);
  return {
    model,
    queries: new RegistryQueries(model),
    packages: catalog.packages.length,
    bundles: catalog.bundles.length,
  };
}
