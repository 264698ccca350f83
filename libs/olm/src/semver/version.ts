import { NONE } from '../empty.js';
import { goQuote } from '../go-compat/go-format.js';
import { SemverError } from './errors.js';

/** One dot-separated prerelease identifier: a number (`bigint`) or an alphanumeric string. */
export type PrereleaseIdentifier = bigint | string;

/**
 * A semantic version as blang/semver v4 (used by opm and OLM) represents it. Numeric parts are `bigint` because
 * blang accepts the whole `uint64` range.
 */
export interface Version {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  /** Prerelease identifiers; empty for a release version. */
  readonly pre: readonly PrereleaseIdentifier[];
  /** Build metadata identifiers; ignored for precedence. */
  readonly build: readonly string[];
}

const UINT64_MAX = 18446744073709551615n;

const DIGITS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;

function fail(input: string, message: string): never {
  throw new SemverError('SEMVER_INVALID_VERSION', input, message);
}

/** Version numbers are mostly small: one bigint each, not one for every version of a catalog. */
const SMALL_UINTS: bigint[] = [];

/** Go's `strconv.ParseUint(s, 10, 64)` for a string already known to hold only ASCII digits. */
function parseUint(input: string, digits: string): bigint {
  if (digits === '') fail(input, `strconv.ParseUint: parsing ${goQuote(digits)}: invalid syntax`);
  if (digits.length <= 3) {
    const n = Number(digits);
    let cached = SMALL_UINTS[n];
    if (cached === undefined) {
      cached = BigInt(n);
      SMALL_UINTS[n] = cached;
    }
    return cached;
  }
  const value = BigInt(digits);
  if (value > UINT64_MAX) fail(input, `strconv.ParseUint: parsing ${goQuote(digits)}: value out of range`);
  return value;
}

function hasLeadingZeroes(s: string): boolean {
  return s.length > 1 && s[0] === '0';
}

/**
 * Parses one prerelease identifier like blang's `NewPRVersion`.
 *
 * @throws SemverError with blang's message (`Prerelease is empty`, `Numeric PreRelease version must not contain
 *   leading zeroes "01"`, `Invalid character(s) found in prerelease "a_b"`).
 */
export function parsePrerelease(s: string, input: string = s): PrereleaseIdentifier {
  if (s.length === 0) fail(input, 'Prerelease is empty');
  if (DIGITS.test(s)) {
    if (hasLeadingZeroes(s))
      fail(input, `Numeric PreRelease version must not contain leading zeroes ${goQuote(s)}`);
    return parseUint(input, s);
  }
  if (ALPHANUM.test(s)) return s;
  return fail(input, `Invalid character(s) found in prerelease ${goQuote(s)}`);
}

/**
 * Parses a version strictly, exactly like blang/semver v4 `Parse` (what opm applies to `olm.package` versions
 * and to the versions inside skipRanges). Unlike npm `semver`, a `v` prefix, surrounding spaces, `=` prefixes,
 * partial versions and leading zeroes are all rejected.
 *
 * @throws SemverError whose message is blang's (e.g. `No Major.Minor.Patch elements found`).
 */
export function parseVersion(s: string): Version {
  if (s.length === 0) fail(s, 'Version string empty');
  const first = s.indexOf('.');
  const second = first < 0 ? -1 : s.indexOf('.', first + 1);
  if (second < 0) fail(s, 'No Major.Minor.Patch elements found');
  const majorStr = s.slice(0, first);
  const minorStr = s.slice(first + 1, second);
  let patchStr = s.slice(second + 1);

  if (!DIGITS.test(majorStr)) fail(s, `Invalid character(s) found in major number ${goQuote(majorStr)}`);
  if (hasLeadingZeroes(majorStr))
    fail(s, `Major number must not contain leading zeroes ${goQuote(majorStr)}`);
  const major = parseUint(s, majorStr);
  if (!DIGITS.test(minorStr)) fail(s, `Invalid character(s) found in minor number ${goQuote(minorStr)}`);
  if (hasLeadingZeroes(minorStr))
    fail(s, `Minor number must not contain leading zeroes ${goQuote(minorStr)}`);
  const minor = parseUint(s, minorStr);

  let build: string[] = [];
  let prerelease: string[] = [];
  const buildIndex = patchStr.indexOf('+');
  if (buildIndex >= 0) {
    build = patchStr.slice(buildIndex + 1).split('.');
    patchStr = patchStr.slice(0, buildIndex);
  }
  const preIndex = patchStr.indexOf('-');
  if (preIndex >= 0) {
    prerelease = patchStr.slice(preIndex + 1).split('.');
    patchStr = patchStr.slice(0, preIndex);
  }
  if (!DIGITS.test(patchStr)) fail(s, `Invalid character(s) found in patch number ${goQuote(patchStr)}`);
  if (hasLeadingZeroes(patchStr))
    fail(s, `Patch number must not contain leading zeroes ${goQuote(patchStr)}`);
  const patch = parseUint(s, patchStr);

  const pre = prerelease.length === 0 ? NONE : prerelease.map((p) => parsePrerelease(p, s));
  for (const b of build) {
    if (b.length === 0) fail(s, 'Build meta data is empty');
    if (!ALPHANUM.test(b)) fail(s, `Invalid character(s) found in build meta data ${goQuote(b)}`);
  }
  return { major, minor, patch, pre, build: build.length === 0 ? NONE : build };
}

/** Like {@link parseVersion} but returns `undefined` instead of throwing. */
export function tryParseVersion(s: string): Version | undefined {
  try {
    return parseVersion(s);
  } catch (err) {
    if (err instanceof SemverError) return undefined;
    throw err;
  }
}

/**
 * Parses like blang's `ParseTolerant`, which operator-sdk applies to CSV versions and Kubernetes versions: trims
 * spaces, drops a leading `v`, strips leading zeroes and pads `1.2` to `1.2.0`.
 *
 * @throws SemverError with blang's message.
 */
export function parseVersionTolerant(input: string): Version {
  let s = input.trim();
  if (s.startsWith('v')) s = s.slice(1);
  const first = s.indexOf('.');
  const second = first < 0 ? -1 : s.indexOf('.', first + 1);
  const parts =
    first < 0
      ? [s]
      : second < 0
        ? [s.slice(0, first), s.slice(first + 1)]
        : [s.slice(0, first), s.slice(first + 1, second), s.slice(second + 1)];
  for (let i = 0; i < parts.length; i++) {
    let part = parts[i]!;
    if (part.length > 1) {
      part = part.replace(/^0+/, '');
      if (part.length === 0 || !/^[0-9]/.test(part)) part = `0${part}`;
      parts[i] = part;
    }
  }
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1]!))
      fail(input, 'Short version cannot contain PreRelease/Build meta data');
    while (parts.length < 3) parts.push('0');
  }
  return parseVersion(parts.join('.'));
}

/** Like {@link parseVersionTolerant} but returns `undefined` instead of throwing. */
export function tryParseVersionTolerant(s: string): Version | undefined {
  try {
    return parseVersionTolerant(s);
  } catch (err) {
    if (err instanceof SemverError) return undefined;
    throw err;
  }
}

/** The zero version `0.0.0`, what blang's zero value formats as. */
export const ZERO_VERSION: Version = { major: 0n, minor: 0n, patch: 0n, pre: [], build: [] };

/** Whether `s` is a version blang's strict `Parse` accepts. */
export function isValidVersion(s: string): boolean {
  return tryParseVersion(s) !== undefined;
}

/** Formats a version like blang's `Version.String()` (numbers without leading zeroes, then `-pre`, `+build`). */
export function formatVersion(v: Version): string {
  let out = `${v.major}.${v.minor}.${v.patch}`;
  if (v.pre.length > 0) out += `-${v.pre.map(String).join('.')}`;
  if (v.build.length > 0) out += `+${v.build.join('.')}`;
  return out;
}

function compareBig(a: bigint, b: bigint): -1 | 0 | 1 {
  if (a === b) return 0;
  return a > b ? 1 : -1;
}

/** Compares two prerelease identifiers: numbers numerically, numbers below strings, strings by byte order. */
export function comparePrerelease(a: PrereleaseIdentifier, b: PrereleaseIdentifier): -1 | 0 | 1 {
  const aNum = typeof a === 'bigint';
  const bNum = typeof b === 'bigint';
  if (aNum && !bNum) return -1;
  if (!aNum && bNum) return 1;
  if (aNum && bNum) return compareBig(a, b as bigint);
  if (a === b) return 0;
  return (a as string) > (b as string) ? 1 : -1;
}

/**
 * Compares versions by semver precedence exactly like blang's `Version.Compare`: build metadata is ignored, a
 * release is greater than any of its prereleases, and prerelease identifiers are compared pairwise.
 */
export function compareVersions(a: Version, b: Version): -1 | 0 | 1 {
  const c = compareBig(a.major, b.major) || compareBig(a.minor, b.minor) || compareBig(a.patch, b.patch);
  if (c !== 0) return c;
  if (a.pre.length === 0 && b.pre.length === 0) return 0;
  if (a.pre.length === 0) return 1;
  if (b.pre.length === 0) return -1;
  const n = Math.min(a.pre.length, b.pre.length);
  for (let i = 0; i < n; i++) {
    const p = comparePrerelease(a.pre[i]!, b.pre[i]!);
    if (p !== 0) return p;
  }
  if (a.pre.length === b.pre.length) return 0;
  return a.pre.length < b.pre.length ? -1 : 1;
}

/** A version with only major, minor and patch (blang's `FinalizeVersion`). */
export function finalizeVersion(v: Version): Version {
  return { major: v.major, minor: v.minor, patch: v.patch, pre: [], build: [] };
}
