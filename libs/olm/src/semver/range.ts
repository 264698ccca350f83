import { goQuote } from '../go-compat/go-format.js';
import { SemverError } from './errors.js';
import { compareVersions, parseVersion, type Version } from './version.js';

/** A comparison operator of a blang range (`!=` also covers blang's `!`; `=` covers `==` and no operator). */
export type ComparatorOperator = '=' | '!=' | '<' | '<=' | '>' | '>=';

/** One `<op><version>` term of a range. */
export interface Comparator {
  readonly operator: ComparatorOperator;
  readonly version: Version;
}

/**
 * A parsed blang/semver v4 range: a disjunction (`||`) of conjunctions (space-separated comparators). Wildcards
 * are already expanded the way blang expands them.
 */
export interface VersionRange {
  /** The text the range was parsed from. */
  readonly source: string;
  /** OR over the outer array, AND over each inner array. */
  readonly alternatives: readonly (readonly Comparator[])[];
}

function rangeError(input: string, message: string): never {
  throw new SemverError('SEMVER_INVALID_RANGE', input, message);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const SPACE = 0x20;
const NO_SPLIT_AFTER = new Set([0x3e, 0x3c, 0x3d]); // '>', '<', '='

/**
 * blang's `splitAndTrim`, byte for byte: splits on spaces except right after `>`, `<` or `=`, drops tokens of a
 * single byte (a blang quirk), then removes the spaces left inside tokens.
 */
function splitAndTrim(s: string): string[] {
  const bytes = encoder.encode(s);
  const result: string[] = [];
  let last = 0;
  let lastChar = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === SPACE && !NO_SPLIT_AFTER.has(lastChar)) {
      if (last < i - 1) result.push(decoder.decode(bytes.subarray(last, i)));
      last = i + 1;
    } else if (bytes[i] !== SPACE) {
      lastChar = bytes[i]!;
    }
  }
  if (last < bytes.length - 1) result.push(decoder.decode(bytes.subarray(last)));
  return result.map((v) => v.replaceAll(' ', ''));
}

function splitOrParts(input: string, parts: string[]): string[][] {
  const orParts: string[][] = [];
  let last = 0;
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === '||') {
      if (i === 0) rangeError(input, "First element in range is '||'");
      orParts.push(parts.slice(last, i));
      last = i + 1;
    }
  }
  if (last === parts.length) rangeError(input, "Last element in range is '||'");
  orParts.push(parts.slice(last));
  return orParts;
}

const DIGIT = /\p{Nd}/u;

function splitComparatorVersion(input: string, s: string): [string, string] {
  const m = DIGIT.exec(s);
  if (!m) rangeError(input, `Could not get version from string: ${goQuote(s)}`);
  return [s.slice(0, m.index).trim(), s.slice(m.index)];
}

type WildcardType = 'none' | 'major' | 'minor' | 'patch';

function wildcardType(vStr: string): WildcardType {
  const parts = vStr.split('.');
  if (parts[parts.length - 1] !== 'x') return 'none';
  return (['none', 'major', 'minor', 'patch'] as const)[parts.length] ?? 'none';
}

function versionFromWildcard(vStr: string): string {
  const flat = vStr.replace('.x.x', '.x').replace('.x', '.0');
  return flat.split('.').length === 2 ? `${flat}.0` : flat;
}

/** Go's `strconv.Atoi` (64-bit); `undefined` where Go returns an error. */
function atoi(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const v = BigInt(s);
  return v > 9223372036854775807n || v < -9223372036854775808n ? undefined : v;
}

function incrementPart(vStr: string, index: number): string {
  const parts = vStr.split('.');
  const n = atoi(parts[index] ?? '');
  if (n === undefined) return '';
  parts[index] = String(n + 1n);
  return parts.join('.');
}

/** blang's `expandWildcardVersion`, including its quirks (`!=1.2.x` matches nothing; `1.x.x` acts like `1.0.x`). */
function expandWildcards(input: string, parts: string[][]): string[][] {
  return parts.map((p) => {
    const out: string[] = [];
    for (let ap of p) {
      if (ap.includes('x')) {
        const [op, vStr] = splitComparatorVersion(input, ap);
        const type = wildcardType(vStr);
        const flat = versionFromWildcard(vStr);
        let resultOperator = '';
        let increment = false;
        switch (op) {
          case '>':
            resultOperator = '>=';
            increment = true;
            break;
          case '>=':
            resultOperator = '>=';
            break;
          case '<':
            resultOperator = '<';
            break;
          case '<=':
            resultOperator = '<';
            increment = true;
            break;
          case '':
          case '=':
          case '==':
            out.push(`>=${flat}`);
            resultOperator = '<';
            increment = true;
            break;
          case '!=':
          case '!':
            out.push(`<${flat}`);
            resultOperator = '>=';
            increment = true;
            break;
        }
        let resultVersion = flat;
        if (increment) {
          if (type === 'patch') resultVersion = incrementPart(flat, 1);
          else if (type === 'minor') resultVersion = incrementPart(flat, 0);
          else resultVersion = '';
        }
        ap = resultOperator + resultVersion;
      }
      out.push(ap);
    }
    return out;
  });
}

const OPERATORS: Readonly<Record<string, ComparatorOperator>> = {
  '': '=',
  '=': '=',
  '==': '=',
  '!': '!=',
  '!=': '!=',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
};

/**
 * Parses a range exactly like blang/semver v4 `ParseRange` — the grammar of OLM `skipRange`s and of
 * `olm.package.required` version ranges. This is **not** npm's range language: no `^`, `~`, hyphen ranges, `*`
 * or partial versions; `.x` wildcards only; `!=`/`!` exist; versions are parsed strictly (`v1.0.0` is invalid).
 *
 * @throws SemverError with blang's message. blang splits operator and version at the first digit, so
 *   `<v3.9.19` fails with `Could not parse Range "<v3.9.19": Could not parse comparator "<v" in "<v3.9.19"`.
 */
export function parseRange(s: string): VersionRange {
  const orParts = splitOrParts(s, splitAndTrim(s));
  const expanded = expandWildcards(s, orParts);
  const alternatives = expanded.map((and) =>
    and.map((ap): Comparator => {
      const [opStr, vStr] = splitComparatorVersion(s, ap);
      const operator = OPERATORS[opStr];
      if (operator === undefined) {
        rangeError(
          s,
          `Could not parse Range ${goQuote(ap)}: Could not parse comparator ${goQuote(opStr)} in ${goQuote(opStr + vStr)}`,
        );
      }
      let version: Version;
      try {
        version = parseVersion(vStr);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        rangeError(
          s,
          `Could not parse Range ${goQuote(ap)}: Could not parse version ${goQuote(vStr)} in ${goQuote(opStr + vStr)}: ${reason}`,
        );
      }
      return { operator, version };
    }),
  );
  return { source: s, alternatives };
}

/** Like {@link parseRange} but returns `undefined` for an invalid range (what OLM does on the cluster). */
export function tryParseRange(s: string): VersionRange | undefined {
  try {
    return parseRange(s);
  } catch (err) {
    if (err instanceof SemverError) return undefined;
    throw err;
  }
}

function test(c: Comparator, v: Version): boolean {
  const cmp = compareVersions(v, c.version);
  switch (c.operator) {
    case '=':
      return cmp === 0;
    case '!=':
      return cmp !== 0;
    case '<':
      return cmp < 0;
    case '<=':
      return cmp <= 0;
    case '>':
      return cmp > 0;
    case '>=':
      return cmp >= 0;
  }
}

/**
 * Whether `version` satisfies `range` with blang semantics: prereleases are ordinary versions (`>=1.0.0 <2.0.0`
 * contains `1.5.0-beta.1`, unlike npm `semver.satisfies`), and build metadata is ignored.
 */
export function rangeIncludes(range: VersionRange, version: Version): boolean {
  return range.alternatives.some((and) => and.every((c) => test(c, version)));
}
