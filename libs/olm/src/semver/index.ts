/**
 * Semantic versions and ranges exactly as blang/semver v4 — the library opm and OLM use for `olm.package`
 * versions, `skipRange`s and `olm.package.required` ranges — implements them. npm `semver` is deliberately not used
 * for parsing because it disagrees with blang:
 *
 * - versions: npm accepts a `v` prefix and surrounding spaces (and, loose, `=` and leading zeroes); blang rejects
 *   them all. blang accepts numbers up to 2^64-1, npm only up to 2^53-1. Precedence is the same for versions both
 *   accept (checked in the tests).
 * - ranges: blang has no `^`, `~`, `*`, partial versions or hyphen ranges, only `.x` wildcards, and has `!=`;
 *   `!=1.2.x` matches nothing and `1.x.x` behaves like `1.0.x`; single-character tokens are dropped (so
 *   `1.2.3 - 2.0.0` means `=1.2.3 =2.0.0`); prereleases are ordinary versions (`>=1.0.0 <2.0.0` contains
 *   `1.5.0-beta.1`, which npm excludes). Error messages are blang's, verbatim.
 */
export { SemverError, type SemverErrorCode } from './errors.js';
export {
  type Comparator,
  type ComparatorOperator,
  parseRange,
  rangeIncludes,
  tryParseRange,
  type VersionRange,
} from './range.js';
export {
  comparePrerelease,
  compareVersions,
  finalizeVersion,
  formatVersion,
  isValidVersion,
  type PrereleaseIdentifier,
  parsePrerelease,
  parseVersion,
  parseVersionTolerant,
  tryParseVersion,
  tryParseVersionTolerant,
  type Version,
  ZERO_VERSION,
} from './version.js';
