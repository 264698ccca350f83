import npmSemver from 'semver';
import { describe, expect, it } from 'vitest';
import { parseRange, rangeIncludes, tryParseRange } from './range.js';
import { parseVersion } from './version.js';

const includes = (range: string, version: string): boolean =>
  rangeIncludes(parseRange(range), parseVersion(version));

// Expected results were produced by blang/semver v4.0.0 itself (a throwaway Go harness fed the same inputs).
describe('parseRange (blang/semver v4 ParseRange)', () => {
  it.each([
    ['>=1.0.0 <2.0.0', '1.5.0', true],
    ['>=1.0.0 <2.0.0', '2.0.0', false],
    ['>= 1.0.0 <1.3.0', '1.2.5', true],
    ['<1.0.0 || >=2.0.0', '2.0.0', true],
    ['<1.0.0 || >=2.0.0', '1.5.0', false],
    ['!=1.0.0', '1.0.1', true],
    ['!1.0.0', '1.0.0', false],
    ['==1.0.0', '1.0.0', true],
    ['1.2.x', '1.2.5', true],
    ['1.2.x', '1.3.0', false],
    ['<=1.2.x', '1.2.9', true],
    ['>1.2.x', '1.3.0', true],
    ['>1.2.x', '1.2.9', false],
    ['1.x', '1.9.0', true],
    ['1.x', '2.0.0', false],
  ])('%j includes %s: %s', (range, version, expected) => {
    expect(includes(range, version)).toBe(expected);
  });

  it('treats prereleases as ordinary versions (npm semver excludes them)', () => {
    expect(includes('>=1.0.0 <2.0.0', '1.5.0-beta.1')).toBe(true);
    expect(npmSemver.satisfies('1.5.0-beta.1', '>=1.0.0 <2.0.0')).toBe(false);
  });

  it('reproduces the blang quirk that !=1.2.x matches nothing', () => {
    for (const v of ['1.0.0', '1.2.0', '1.2.5', '1.3.0', '2.0.0']) expect(includes('!=1.2.x', v)).toBe(false);
  });

  it('reproduces the blang quirk that 1.x.x behaves like 1.0.x', () => {
    expect(includes('1.x.x', '1.0.0')).toBe(true);
    expect(includes('1.x.x', '1.2.0')).toBe(false);
  });

  it('reproduces the blang quirk that single-character tokens are dropped, so a hyphen range is two equalities', () => {
    expect(tryParseRange('1.2.3 - 2.0.0')).toBeDefined();
    expect(includes('1.2.3 - 2.0.0', '1.5.0')).toBe(false);
    expect(npmSemver.satisfies('1.5.0', '1.2.3 - 2.0.0')).toBe(true);
  });

  it.each([
    ['', "Last element in range is '||'"],
    ['*', "Last element in range is '||'"],
    ['|| 1.0.0', "First element in range is '||'"],
    ['1.0.0 ||', "Last element in range is '||'"],
    ['~1.2.3', 'Could not parse Range "~1.2.3": Could not parse comparator "~" in "~1.2.3"'],
    ['^1.2.3', 'Could not parse Range "^1.2.3": Could not parse comparator "^" in "^1.2.3"'],
    ['<v3.9.19', 'Could not parse Range "<v3.9.19": Could not parse comparator "<v" in "<v3.9.19"'],
    [
      '>=1.0.0 <2',
      'Could not parse Range "<2": Could not parse version "2" in "<2": No Major.Minor.Patch elements found',
    ],
    ['ab cd', 'Could not get version from string: "ab"'],
    ['a b', "Last element in range is '||'"],
  ])('rejects %j with %j', (range, message) => {
    expect(() => parseRange(range)).toThrowError(message);
    expect(tryParseRange(range)).toBeUndefined();
  });

  it('ignores build metadata when matching', () => {
    expect(includes('>=1.0.0 <1.0.1', '1.0.0+build.7')).toBe(true);
  });
});
