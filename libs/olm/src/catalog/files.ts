/**
 * Loading a file-based catalog directory and writing a catalog with opm's order and bytes, and no more: the
 * modules `@opkit/olm/action/render` (`opkit catalog render` and `migrate`) loads, for programs that want
 * them alone. A narrower entry point than `@opkit/olm/catalog`, whose templates, validators, migrations and
 * bundle rendering a plain render never runs but would load.
 */
export { type LoadCatalogOptions, loadCatalog } from './declcfg/load.js';
export { type BundleBlob, type Catalog, emptyCatalog } from './declcfg/types.js';
export {
  type CatalogFormat,
  serializeCatalog,
  type WriteCatalogOptions,
  writeCatalog,
} from './declcfg/write.js';
