// The release gate of a catalog: what changed between two revisions of it, by meaning (diff), whether every
// installed version still reaches its channel head (upgrade paths), and on every upgrade edge whether the CRDs
// stay safe and which permissions the operator gains; each check reports findings a policy turns into a verdict.

export {
  type CelBundleContext,
  type CelLimits,
  type CrdSchema,
  celCheck,
  celFindingsOfBundle,
  celFindingsOfEdge,
  DEFAULT_CEL_LIMITS,
  EvaluationBudget,
  type EvaluationMode,
  evaluateRules,
  type RuleOutcome,
  type ValidationRule,
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
  type PropertyRule,
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
  type PackageChange,
  type PackageDiff,
  type PropertyChange,
  packageChanges,
  type RelatedImageRef,
  renderCatalogDiff,
  type SkipRangeChange,
  type ValueChange,
} from './diff/index.js';
export { type CatalogEdge, catalogEdges, type EdgeBundle } from './edges.js';
export { compareFindings, type Finding, type FindingSeverity } from './findings.js';
export * from './gate/index.js';
export * from './permissions/index.js';
export {
  ALL_CHANNELS,
  type ChannelPaths,
  channelHeads,
  type InstalledBundle,
  legacyVersionRelease,
  nextUpgradeV1,
  PATHS_FORMATS,
  type PackagePaths,
  type PathBundle,
  type PathOutcome,
  type PathStep,
  type PathsByRules,
  type PathsFormat,
  type PathsReport,
  pathEnd,
  renderPaths,
  selectionName,
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
