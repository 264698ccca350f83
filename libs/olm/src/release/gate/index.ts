// The release gate itself: runs every check family on what a release adds to a catalog and turns their
// findings into a verdict by a policy (which rules fail, which are ignored) and the acceptances bundles
// declare in their CSVs; writes the report as text, JSON, YAML or Markdown.
export {
  type Acceptance,
  acceptanceOf,
  parseAcceptances,
  RELEASE_ACCEPTS_ANNOTATION,
} from './acceptance.js';
export { type AcceptedFinding, checkRelease, type ReleaseReport } from './check-release.js';
export { defaultReleaseChecks } from './default-checks.js';
export type { ReleaseCheck } from './release-check.js';
export {
  DEFAULT_RELEASE_POLICY,
  parseReleasePolicy,
  type ReleasePolicy,
  ReleasePolicyError,
  readReleasePolicy,
} from './release-policy.js';
export {
  RELEASE_REPORT_FORMATS,
  type ReleaseReportFormat,
  renderReleaseReport,
} from './render-report.js';
export { ruleMatchesAny, ruleMatchesGlob } from './rule-glob.js';
