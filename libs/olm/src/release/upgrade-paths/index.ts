// Upgrade paths of every installed version under OLM v0's and OLM v1's resolution rules, before and after a
// catalog change, the `upgrade/...` findings about them, and their renderings.
export {
  type PathsByRules,
  type UpgradePathChanges,
  type UpgradePathChangesOptions,
  upgradePathChanges,
} from './changes.js';
export { channelHeads, type UpgradePathsOptions, upgradePaths } from './paths.js';
export { PATHS_FORMATS, type PathsFormat, type PathsReport, renderPaths } from './render.js';
export {
  ALL_CHANNELS,
  type ChannelPaths,
  type PackagePaths,
  type PathBundle,
  type PathOutcome,
  type PathStep,
  pathEnd,
  selectionName,
  type UpgradePath,
  type UpgradeRules,
} from './types.js';
export { upgradePathCheck } from './upgrade-path-check.js';
export {
  type InstalledBundle,
  legacyVersionRelease,
  nextUpgradeV1,
  type UpgradeConstraintPolicy,
  type V1Choice,
} from './v1-choice.js';
