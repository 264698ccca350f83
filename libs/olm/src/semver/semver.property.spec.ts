import fc from 'fast-check';
import npmSemver from 'semver';
import { describe, expect, it } from 'vitest';
import { SemverError } from './errors.js';
import { parseRange, rangeIncludes, tryParseRange } from './range.js';
import { compareVersions, formatVersion, parseVersion, parseVersionTolerant } from './version.js';

// A fixed seed keeps `npm test` reproducible; FUZZ_RUNS=100000 searches longer on demand.
const params = { seed: 20261126, numRuns: Number(process.env.FUZZ_RUNS ?? 300) };
// A long search is unbounded in time; the default runs stay within vitest's usual timeout.
const long = process.env.FUZZ_RUNS === undefined ? {} : { timeout: 0 };

const numeric = fc.oneof(fc.constantFrom('0', '1', '2', '10'), fc.nat({ max: 2 ** 40 }).map(String));
const alnum = fc.stringMatching(/^[0-9A-Za-z-]{1,8}$/).filter((s) => !/^0[0-9]+$/.test(s));
const version = fc
  .tuple(
    numeric,
    numeric,
    numeric,
    fc.array(alnum, { maxLength: 3 }),
    fc.array(fc.stringMatching(/^[0-9A-Za-z-]{1,6}$/), { maxLength: 2 }),
  )
  .map(
    ([major, minor, patch, pre, build]) =>
      `${major}.${minor}.${patch}${pre.length ? `-${pre.join('.')}` : ''}${build.length ? `+${build.join('.')}` : ''}`,
  );

/** Strings made mostly of the characters a version or range is built from, so the parsers' branches get hit. */
const versionish = fc.string({
  unit: fc.constantFrom(...'0123456789.-+vx*<>=!| aZ_~^\u00e9'.split('')),
  maxLength: 24,
});

const refusedWithSemverError = (parse: () => unknown): void => {
  try {
    parse();
  } catch (err) {
    expect(err).toBeInstanceOf(SemverError);
    expect((err as Error).message).not.toContain('\n');
  }
};

describe('versions, by property', long, () => {
  it('every valid version formats back to the text it was parsed from', () => {
    fc.assert(
      fc.property(version, (s) => {
        expect(formatVersion(parseVersion(s))).toBe(s);
      }),
      params,
    );
  });

  it('orders versions the way npm semver does for the inputs both accept', () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        // npm compares numeric identifiers as JavaScript numbers; stay below 2^53 so both are exact.
        expect(compareVersions(parseVersion(a), parseVersion(b))).toBe(npmSemver.compare(a, b));
      }),
      params,
    );
  });

  it('accepts a version exactly when npm semver accepts it strictly, v-prefix and leading "=" aside', () => {
    fc.assert(
      fc.property(versionish, (s) => {
        const ours = (() => {
          try {
            parseVersion(s);
            return true;
          } catch {
            return false;
          }
        })();
        // npm trims spaces and drops `v`/`=` prefixes; blang (and so opm) refuses them. Numbers past 2^53 are
        // refused by npm and accepted by blang up to uint64.
        const npmComparable = s === s.trim() && !/^[v=]/.test(s) && !/[0-9]{16,}/.test(s);
        if (npmComparable) expect(ours).toBe(npmSemver.valid(s) === s);
      }),
      params,
    );
  });

  it('refuses any other text with a one-line SemverError, never another throw', () => {
    fc.assert(
      fc.property(fc.oneof(versionish, fc.string({ maxLength: 40 })), (s) => {
        refusedWithSemverError(() => parseVersion(s));
        refusedWithSemverError(() => parseVersionTolerant(s));
        refusedWithSemverError(() => parseRange(s));
      }),
      params,
    );
  });
});

describe('ranges, by property', long, () => {
  const operator = fc.constantFrom('', '=', '==', '!=', '<', '<=', '>', '>=');
  // blang reads any comparator containing an `x` as a wildcard (`1.0.0-x` too), so range versions avoid it.
  const comparator = fc
    .tuple(
      operator,
      version.filter((v) => !v.includes('x')),
    )
    .map(([op, v]) => `${op}${v}`);
  const range = fc
    .array(fc.array(comparator, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 })
    .map((ors) => ors.map((and) => and.join(' ')).join(' || '));

  it('a range holds a version exactly when one of its alternatives holds all of its comparators', () => {
    fc.assert(
      fc.property(range, version, (r, v) => {
        const parsed = parseRange(r);
        const target = parseVersion(v);
        const expected = r
          .split(' || ')
          .some((and) => and.split(' ').every((c) => rangeIncludes(parseRange(c), target)));
        expect(rangeIncludes(parsed, target)).toBe(expected);
      }),
      params,
    );
  });

  it('agrees with npm semver on release versions for ranges of plain comparators', () => {
    const release = fc
      .tuple(fc.nat({ max: 5 }), fc.nat({ max: 5 }), fc.nat({ max: 5 }))
      .map((p) => p.join('.'));
    const npmOperator = fc.constantFrom('', '<', '<=', '>', '>=');
    const npmRange = fc
      .array(
        fc.array(
          fc.tuple(npmOperator, release).map(([op, v]) => `${op}${v}`),
          { minLength: 1, maxLength: 3 },
        ),
        { minLength: 1, maxLength: 3 },
      )
      .map((ors) => ors.map((and) => and.join(' ')).join(' || '));
    fc.assert(
      fc.property(npmRange, release, (r, v) => {
        expect(rangeIncludes(parseRange(r), parseVersion(v))).toBe(npmSemver.satisfies(v, r));
      }),
      params,
    );
  });

  it('tryParseRange returns undefined exactly where parseRange throws', () => {
    fc.assert(
      fc.property(versionish, (s) => {
        let threw = false;
        try {
          parseRange(s);
        } catch {
          threw = true;
        }
        expect(tryParseRange(s) === undefined).toBe(threw);
      }),
      params,
    );
  });
});
