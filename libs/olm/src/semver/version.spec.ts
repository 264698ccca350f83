import npmSemver from 'semver';
import { describe, expect, it } from 'vitest';
import { SemverError } from './errors.js';
import {
  compareVersions,
  formatVersion,
  isValidVersion,
  parseVersion,
  parseVersionTolerant,
  tryParseVersion,
  tryParseVersionTolerant,
} from './version.js';

// Expected messages were produced by blang/semver v4.0.0 itself (a throwaway Go harness fed the same inputs).
const BLANG_ERRORS: readonly [string, string][] = [
  ['', 'Version string empty'],
  ['1.2', 'No Major.Minor.Patch elements found'],
  ['v1.2.3', 'Invalid character(s) found in major number "v1"'],
  ['01.2.3', 'Major number must not contain leading zeroes "01"'],
  ['1.02.3', 'Minor number must not contain leading zeroes "02"'],
  ['1.2.03', 'Patch number must not contain leading zeroes "03"'],
  ['1.2.3-01', 'Numeric PreRelease version must not contain leading zeroes "01"'],
  ['1.2.3-', 'Prerelease is empty'],
  ['1.2.3-a_b', 'Invalid character(s) found in prerelease "a_b"'],
  ['1.2.3+', 'Build meta data is empty'],
  ['1.2.3+a_b', 'Invalid character(s) found in build meta data "a_b"'],
  ['1..2', 'strconv.ParseUint: parsing "": invalid syntax'],
  ['18446744073709551616.0.0', 'strconv.ParseUint: parsing "18446744073709551616": value out of range'],
  [' 1.2.3', 'Invalid character(s) found in major number " 1"'],
  ['1.2.3.4', 'Invalid character(s) found in patch number "3.4"'],
];

describe('parseVersion (blang/semver v4 strict Parse)', () => {
  it.each(BLANG_ERRORS)('rejects %j with blang message %j', (input, message) => {
    expect(() => parseVersion(input)).toThrowError(new SemverError('SEMVER_INVALID_VERSION', input, message));
  });

  it('accepts prerelease and build metadata and prints them back unchanged', () => {
    expect(formatVersion(parseVersion('1.2.3-alpha.1+build.5'))).toBe('1.2.3-alpha.1+build.5');
    expect(formatVersion(parseVersion('18446744073709551615.0.0'))).toBe('18446744073709551615.0.0');
  });

  it('keeps numeric prerelease identifiers as numbers and others as strings', () => {
    expect(parseVersion('1.0.0-rc.10.x-y').pre).toEqual(['rc', 10n, 'x-y']);
  });

  it('returns undefined from tryParseVersion instead of throwing', () => {
    expect(tryParseVersion('1.2')).toBeUndefined();
    expect(isValidVersion('1.2.3')).toBe(true);
  });
});

describe('compareVersions (semver precedence as blang implements it)', () => {
  const order = [
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-alpha.beta',
    '1.0.0-beta',
    '1.0.0-beta.2',
    '1.0.0-beta.11',
  ];
  const ordered = [...order, '1.0.0-rc.1', '1.0.0', '1.0.1', '1.1.0', '2.0.0'];

  it('orders the semver.org example chain ascending', () => {
    for (let i = 1; i < ordered.length; i++) {
      expect(compareVersions(parseVersion(ordered[i - 1]!), parseVersion(ordered[i]!))).toBe(-1);
      expect(compareVersions(parseVersion(ordered[i]!), parseVersion(ordered[i - 1]!))).toBe(1);
    }
  });

  it('ignores build metadata', () => {
    expect(compareVersions(parseVersion('1.0.0+a'), parseVersion('1.0.0+b'))).toBe(0);
  });
});

describe('differences from npm semver (why npm semver is not used for parsing)', () => {
  it('npm accepts a v prefix and surrounding spaces that blang rejects', () => {
    for (const input of ['v1.2.3', ' 1.2.3 ']) {
      expect(npmSemver.valid(input)).toBe('1.2.3');
      expect(isValidVersion(input)).toBe(false);
    }
  });

  it('npm loose mode additionally accepts = prefixes and leading zeroes', () => {
    for (const input of ['=1.2.3', '01.2.3']) {
      expect(npmSemver.valid(input, { loose: true })).toBe('1.2.3');
      expect(isValidVersion(input)).toBe(false);
    }
  });

  it('npm rejects numbers beyond MAX_SAFE_INTEGER that blang accepts as uint64', () => {
    expect(npmSemver.valid('9007199254740993.0.0')).toBeNull();
    expect(isValidVersion('9007199254740993.0.0')).toBe(true);
  });

  it('agrees with npm on precedence for versions both accept', () => {
    const vs = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-beta.11',
      '1.0.0-beta.2',
      '1.0.0',
      '0.9.9',
      '1.0.0-0',
      '1.0.0-a-b',
    ];
    for (const a of vs) {
      for (const b of vs) {
        expect(compareVersions(parseVersion(a), parseVersion(b))).toBe(npmSemver.compare(a, b));
      }
    }
  });
});

describe('parseVersionTolerant (blang ParseTolerant, as CSV decoding uses it)', () => {
  it('trims, drops a v prefix, strips leading zeroes and pads short versions', () => {
    expect(formatVersion(parseVersionTolerant(' v1.2 '))).toBe('1.2.0');
    expect(formatVersion(parseVersionTolerant('01.02.03-rc.1'))).toBe('1.2.3-rc.1');
  });

  it('still rejects what is not a version, with blang messages', () => {
    expect(() => parseVersionTolerant('one.two')).toThrow(
      'Invalid character(s) found in major number "0one"',
    );
    expect(() => parseVersionTolerant('1.2-rc')).toThrow(
      'Short version cannot contain PreRelease/Build meta data',
    );
    expect(tryParseVersionTolerant('')).toBeUndefined();
  });
});
