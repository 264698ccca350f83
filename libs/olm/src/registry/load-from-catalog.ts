import { loadCatalog } from '../catalog/declcfg/load.js';
import { formatValidationResults } from '../catalog/model/format.js';
import { convertAndValidate } from '../catalog/model/validate.js';
import { goQuote } from '../go-compat/go-format.js';
import { RegistryError } from './errors.js';
import type { LoadedRegistry } from './loaded-registry.js';
import { RegistryQueries } from './queries.js';
import { type BuildRegistryModelOptions, buildRegistryModel } from './registry-model.js';

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

/**
 * A catalog directory made ready to serve without a cache: loaded, validated as `opm validate` does (opm's
 * serve refuses an invalid catalog too), and the registry model derived from the model validation built.
 *
 * @throws CatalogLoadError when a file cannot be read or decoded
 * @throws RegistryError `REGISTRY_CATALOG_INVALID` with opm's validation message, or a conversion error
 */
export async function loadRegistryFromCatalog(
  dir: string,
  options: BuildRegistryModelOptions,
): Promise<LoadedRegistry> {
  const catalog = await loadCatalog(dir);
  const { model: catalogModel, results } = convertAndValidate(catalog, { warnings: false });
  const errors = results.filter((r) => r.level === 'error');
  if (errors.length > 0) {
    throw new RegistryError(
      'REGISTRY_CATALOG_INVALID',
      `${dir}: the catalog is invalid, refusing to serve it:\n${formatValidationResults(errors)}`,
    );
  }
  for (const other of catalog.others) checkCustomSchemaBlob(other.schema, other.package);
  const model = buildRegistryModel(catalogModel, options);
  return {
    model,
    queries: new RegistryQueries(model),
    packages: catalog.packages.length,
    bundles: catalog.bundles.length,
    // Everything is in memory: nothing to release.
    close: async () => {},
  };
}
