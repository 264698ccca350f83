/**
 * File-based catalogs (FBC) as operator-registry v1.73.0 handles them: loading with opm's decoder rules
 * (`loadCatalog`), the package/channel/bundle model that validation, the registry and the upgrade graph share
 * (`convertToModel`), `opm validate`'s checks and messages (`validateCatalog`, `formatValidationResults`), opm's
 * byte-exact JSON and YAML writers (`serializeCatalog`, `writeCatalog`), the basic and semver templates, and a
 * synthetic catalog generator for benchmarks.
 *
 * Deliberate differences from opm: all conversion problems are reported, not only the first; channel entries
 * without a bundle are detected in every channel (opm only checks the last channel it loaded per package and
 * otherwise reports `must be exactly one property with type "olm.package"` / `bundle image must be set` for
 * them); packages, channels and bundles are validated in name order (opm uses Go map order); YAML syntax errors
 * come from the `yaml` package, reworded like go-yaml for the common cases; opkit adds `lint` warnings.
 */
export { singleBundleCatalog, withUpgradeBundle } from './bundle-catalog.js';
export type { CatalogModel, ModelBundle, ModelChannel, ModelPackage } from './catalog-model.js';
export { convertToModel } from './convert-to-model.js';
export {
  CatalogError,
  type CatalogErrorCode,
  CatalogLoadError,
  CatalogWriteError,
  type LoadProblem,
  TemplateError,
} from './errors.js';
export { formatValidationResults } from './format.js';
export { type LoadCatalogOptions, listCatalogFiles, loadCatalog, parseCatalogContent } from './load.js';
export {
  MIGRATION_LEVELS,
  type MigrationLevel,
  migrateCatalog,
  parseMigrationLevel,
} from './migrations.js';
export {
  type BundleObjects,
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
export { channelHead, checkReplacesChain, type ReplacesChainResult } from './replaces-chain.js';
export {
  renderSubstitutesTemplate,
  SCHEMA_SUBSTITUTES_TEMPLATE,
  type Substitution,
} from './substitutes-template.js';
export { type SyntheticCatalogOptions, syntheticCatalog } from './synthetic.js';
export {
  parseSemverTemplate,
  type RenderedBundles,
  type RenderTemplateOptions,
  readTemplate,
  renderBasicTemplate,
  renderSemverTemplate,
  renderTemplate,
  SCHEMA_BASIC_TEMPLATE,
  SCHEMA_SEMVER_TEMPLATE,
  type SemverTemplate,
  type TemplateDocument,
  type TemplateInput,
} from './templates.js';
export {
  type BlobSource,
  type BundleBlob,
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
  type ConvertedCatalog,
  convertAndValidate,
  type ValidateCatalogOptions,
  validateCatalog,
} from './validate.js';
export { validateCatalogDir } from './validate-dir.js';
export type {
  ValidationCode,
  ValidationLevel,
  ValidationResult,
  ValidationStage,
} from './validation-result.js';
export {
  type CatalogFormat,
  catalogFiles,
  normalizeForRender,
  serializeCatalog,
  type WriteCatalogOptions,
  writeCatalog,
} from './write.js';
