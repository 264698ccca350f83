// @opkit/olm: OLM's formats — ClusterServiceVersions, registry+v1 bundles, file-based catalogs, templates,
// upgrade graphs — and validators that report what operator-sdk and opm report.
//
// The root holds what building and shipping an operator uses; every folder is also a subpath with all of its
// names (`@opkit/olm/bundle`, `/catalog`, `/catalog/declcfg`, `/catalog/model`, `/catalog/template`, `/csv`,
// `/graph`, `/manifest`, `/release`, `/scorecard`, `/semver`, `/validation`, `/registry`, and `/action` with
// each action as `/action/<module>`), and two narrow doors load only part of the catalog: `/catalog/validate`
// (what `catalog validate` loads) and `/catalog/files` (loading and writing, what `/action/render` loads of it).
// README.md lists the names by concept.

export {
  formatOlmBundleJson,
  type LoadedBundle,
  loadBundle,
  type OlmBundleBlob,
  readBundleAnnotations,
  readYamlStream,
  renderBundle,
  renderLoadedBundle,
  toCatalogBundle,
  type WrittenBundle,
  writeBundle,
} from './bundle/index.js';
export {
  type BundleBlob,
  type Catalog,
  type CatalogFormat,
  CatalogLoadError,
  type ChannelEntry,
  catalogFiles,
  emptyCatalog,
  loadCatalog,
  type Property,
  parseCatalogContent,
  readBundleObjects,
  singleBundleCatalog,
  syntheticCatalog,
  TemplateError,
  withUpgradeBundle,
  writeCatalog,
} from './catalog/declcfg/index.js';
export {
  convertToModel,
  formatValidationResults,
  type ValidationResult,
  validateCatalog,
} from './catalog/model/index.js';
export { readTemplate, renderTemplate, SCHEMA_SEMVER_TEMPLATE } from './catalog/template/index.js';
export {
  findBaseCsv,
  generateCsv,
  kustomizeBaseCsv,
  managerImages,
  manifestsKustomization,
  type OperatorGroupTarget,
  operatorGroupTarget,
  parseInstallMode,
  targetsMatch,
} from './csv/index.js';
export { buildUpgradeGraph, nextUpgrade, renderDot, renderMermaid, renderText } from './graph/index.js';
export { type Manifest, packageNameOf } from './manifest/index.js';
export {
  formatScorecardText,
  formatScorecardXunit,
  readScorecardConfig,
  runScorecard,
  ScorecardConfigError,
  type ScorecardConfiguration,
  scorecardPassed,
} from './scorecard/index.js';
export { tryParseVersion } from './semver/index.js';
export {
  type BundleValidationReport,
  formatJsonAlpha1,
  formatText,
  validateBundleDir,
} from './validation/index.js';
