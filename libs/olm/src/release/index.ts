// The release gate of a catalog: what changed between two revisions of it, by meaning (diff), whether every
// installed version still reaches its channel head under OLM v0's and OLM v1's rules (upgrade paths), and on
// every upgrade edge whether the CRDs stay safe, whether the CRDs' CEL rules accept the examples, and which
// permissions the operator gains; each family reports findings, and the gate turns them into a verdict by a
// policy. Each family's folder has more names for its own tests; these are the ones callers use.

export {
  type CelLimits,
  celCheck,
  celFindingsOfBundle,
  celFindingsOfEdge,
  DEFAULT_CEL_LIMITS,
} from './cel/index.js';
export {
  type CompareCrdsOptions,
  type CrdFinding,
  type CrdRule,
  CrdSchemaError,
  compareCrds,
  crdSafetyCheck,
  crdSafetyOfEdge,
  DEFAULT_SCHEMA_LIMITS,
  type SchemaLimits,
} from './crd-safety/index.js';
export {
  type BundleDiff,
  type BundleRef,
  CATALOG_DIFF_FORMATS,
  type CatalogDiff,
  type CatalogDiffFormat,
  type ChannelDiff,
  diffCatalogs,
  diffCheck,
  diffFindings,
  type EdgeChange,
  type ObjectRef,
  type PackageDiff,
  type PropertyChange,
  type RelatedImageRef,
  renderCatalogDiff,
  type SkipRangeChange,
  type ValueChange,
} from './diff/index.js';
export { type CatalogEdge, catalogEdges, type EdgeBundle } from './edges.js';
export { compareFindings, type Finding, type FindingSeverity } from './findings.js';
export {
  type AcceptedFinding,
  checkRelease,
  DEFAULT_RELEASE_POLICY,
  defaultReleaseChecks,
  parseReleasePolicy,
  RELEASE_ACCEPTS_ANNOTATION,
  RELEASE_REPORT_FORMATS,
  type ReleaseCheck,
  type ReleasePolicy,
  ReleasePolicyError,
  type ReleaseReport,
  type ReleaseReportFormat,
  readReleasePolicy,
  renderReleaseReport,
} from './gate/index.js';
export { permissionChangesOfEdge, permissionCheck } from './permissions/index.js';
export {
  type ChannelPaths,
  nextUpgradeV1,
  PATHS_FORMATS,
  type PackagePaths,
  type PathBundle,
  type PathOutcome,
  type PathStep,
  type PathsByRules,
  type PathsFormat,
  type PathsReport,
  renderPaths,
  type UpgradeConstraintPolicy,
  type UpgradePath,
  type UpgradePathChanges,
  type UpgradePathChangesOptions,
  type UpgradePathsOptions,
  type UpgradeRules,
  upgradePathChanges,
  upgradePathCheck,
  upgradePaths,
  type V1Choice,
} from './upgrade-paths/index.js';
