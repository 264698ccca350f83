// The declarative config of a file-based catalog, as opm's `declcfg` and `property` packages handle it: the
// blob types, loading a directory or a stream with opm's decoder rules, the properties of a bundle, writing with
// opm's order and bytes, the migrations, and small catalogs made in code (one bundle, a synthetic benchmark).
export { singleBundleCatalog, withUpgradeBundle } from './bundle-catalog.js';
export { listCatalogFiles } from './catalog-files.js';
export { csvMetadataOf } from './csv-metadata.js';
export {
  CatalogError,
  type CatalogErrorCode,
  CatalogLoadError,
  CatalogWriteError,
  type LoadProblem,
  TemplateError,
} from './errors.js';
export {
  type CatalogFileCache,
  type LoadCatalogOptions,
  loadCatalog,
  parseCatalogContent,
} from './load.js';
export {
  MIGRATION_LEVELS,
  type MigrationLevel,
  migrateCatalog,
  parseMigrationLevel,
} from './migrations.js';
export {
  bundleVersion,
  type CsvMetadataProperty,
  type GvkProperty,
  type PackageProperty,
  type PackageRequiredProperty,
  type ParsedProperties,
  PROPERTY_BUNDLE_OBJECT,
  PROPERTY_CHANNEL,
  PROPERTY_CONSTRAINT,
  PROPERTY_CSV_METADATA,
  PROPERTY_GVK,
  PROPERTY_GVK_REQUIRED,
  PROPERTY_PACKAGE,
  PROPERTY_PACKAGE_REQUIRED,
  PropertyParseError,
  packageProperty,
  parseProperties,
  readBundleObjects,
} from './properties.js';
export { type SyntheticCatalogOptions, syntheticCatalog } from './synthetic.js';
export {
  type BlobSource,
  type BundleBlob,
  type BundleObjects,
  type BundleRelatedImage,
  type Catalog,
  type ChannelBlob,
  type ChannelEntry,
  type DeprecationBlob,
  type DeprecationEntry,
  type DeprecationReference,
  emptyCatalog,
  type OtherBlob,
  type PackageBlob,
  type PackageIcon,
  type Property,
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_DEPRECATIONS,
  SCHEMA_PACKAGE,
} from './types.js';
export {
  type CatalogFormat,
  catalogFiles,
  normalizeForRender,
  serializeCatalog,
  type WriteCatalogOptions,
  writeCatalog,
} from './write.js';
