/**
 * The subset of blang/semver v4 the validators need (`Parse`, `ParseTolerant`, `String`, `Compare`), with
 * blang's exact error texts. (olm.md §10: CSV versions are blang versions, not npm `semver` ones.)
 */

/** A parsed semantic version. */
export interface BlangVersion {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  /** Prerelease identifiers: numbers as bigint, others as strings. */
  readonly pre: readonly (bigint | string)[];
  readonly build: readonly string[];
}

const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;
const MAX_UINT64 = 2n ** 64n - 1n;

function parseUint(s: string): bigint {
  if (s === '' || !/^[0-9]+$/.test(s)) throw new Error(`strconv.ParseUint: parsing "${s}": invalid syntax`);
  const n = BigInt(s);
  if (n > MAX_UINT64) throw new Error(`strconv.ParseUint: parsing "${s}": value out of range`);
  return n;
}

const hasLeadingZeroes = (s: string): boolean => s.length > 1 && s.startsWith('0');

function parseNumber(part: string, name: string): bigint {
  if (!NUMBERS.test(part)) throw new Error(`Invalid character(s) found in ${name} number "${part}"`);
  const capitalized = name[0]!.toUpperCase() + name.slice(1);
  if (hasLeadingZeroes(part))
    throw new Error(`${capitalized} number must not contain leading zeroes "${part}"`);
  return parseUint(part);
}

/** blang `Parse`: strict `MAJOR.MINOR.PATCH[-PRE][+BUILD]`; throws with blang's message. */
export function parseBlang(s: string): BlangVersion {
  if (s.length === 0) throw new Error('Version string empty');
  const first = s.indexOf('.');
  const second = first < 0 ? -1 : s.indexOf('.', first + 1);
  if (first < 0 || second < 0) throw new Error('No Major.Minor.Patch elements found');
  const major = parseNumber(s.slice(0, first), 'major');
  const minor = parseNumber(s.slice(first + 1, second), 'minor');
  let patchStr = s.slice(second + 1);
  let build: string[] = [];
  let prerelease: string[] = [];
  const plus = patchStr.indexOf('+');
  if (plus >= 0) {
    build = patchStr.slice(plus + 1).split('.');
    patchStr = patchStr.slice(0, plus);
  }
  const dash = patchStr.indexOf('-');
  if (dash >= 0) {
    prerelease = patchStr.slice(dash + 1).split('.');
    patchStr = patchStr.slice(0, dash);
  }
  const patch = parseNumber(patchStr, 'patch');
  const pre = prerelease.map((p): bigint | string => {
    if (p.length === 0) throw new Error('Prerelease is empty');
    if (NUMBERS.test(p)) {
      if (hasLeadingZeroes(p))
        throw new Error(`Numeric PreRelease version must not contain leading zeroes "${p}"`);
      return parseUint(p);
    }
    if (ALPHANUM.test(p)) return p;
    throw new Error(`Invalid character(s) found in prerelease "${p}"`);
  });
  for (const b of build) {
    if (b.length === 0) throw new Error('Build meta data is empty');
    if (!ALPHANUM.test(b)) throw new Error(`Invalid character(s) found in build meta data "${b}"`);
  }
  return { major, minor, patch, pre, build };
}

/** blang `ParseTolerant`: trims, drops a leading `v`, strips leading zeros and pads `1.2` to `1.2.0`. */
export function parseBlangTolerant(input: string): BlangVersion {
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
    let p = parts[i]!;
    if (p.length > 1) {
      p = p.replace(/^0+/, '');
      if (p.length === 0 || !/^[0-9]/.test(p)) p = `0${p}`;
      parts[i] = p;
    }
  }
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1]!))
      throw new Error('Short version cannot contain PreRelease/Build meta data');
    while (parts.length < 3) parts.push('0');
  }
  return parseBlang(parts.join('.'));
}

/** blang `Version.String()`. */
export function formatBlang(v: BlangVersion): string {
  let out = `${v.major}.${v.minor}.${v.patch}`;
  if (v.pre.length > 0) out += `-${v.pre.map(String).join('.')}`;
  if (v.build.length > 0) out += `+${v.build.join('.')}`;
  return out;
}

/** blang `Version.Compare` (build metadata ignored). */
export function compareBlang(a: BlangVersion, b: BlangVersion): number {
  for (const key of ['major', 'minor', 'patch'] as const) {
    if (a[key] !== b[key]) return a[key] > b[key] ? 1 : -1;
  }
  if (a.pre.length === 0 && b.pre.length === 0) return 0;
  if (a.pre.length === 0) return 1;
  if (b.pre.length === 0) return -1;
  for (let i = 0; i < a.pre.length && i < b.pre.length; i++) {
    const x = a.pre[i]!;
    const y = b.pre[i]!;
    if (x === y) continue;
    if (typeof x === 'bigint' && typeof y !== 'bigint') return -1;
    if (typeof x !== 'bigint' && typeof y === 'bigint') return 1;
    return x > y ? 1 : -1;
  }
  if (a.pre.length === b.pre.length) return 0;
  return a.pre.length < b.pre.length ? -1 : 1;
}

/** The zero version `0.0.0`. */
export const ZERO_VERSION: BlangVersion = { major: 0n, minor: 0n, patch: 0n, pre: [], build: [] };

/** Parses with `parseBlang`, returning `undefined` instead of throwing. */
export function tryParseBlang(s: string, tolerant = false): BlangVersion | undefined {
  try {
    return tolerant ? parseBlangTolerant(s) : parseBlang(s);
  } catch {
    return undefined;
  }
}
