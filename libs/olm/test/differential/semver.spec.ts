import { prng } from '@opkit/controller-runtime/testing';
import { askGoParsers } from '@opkit/test-cluster';
import { describe, expect, it } from 'vitest';
import { formatVersion, parseRange, parseVersion, rangeIncludes } from '../../src/semver/index.js';

// Our semver against blang/semver v4 itself (the library opm and OLM use), on generated inputs: the same
// versions and ranges are accepted, with the same canonical form, the same inclusions and the same error text.

const SEED = Number(process.env.OPKIT_PROPERTY_SEED ?? 20261123);
const CASES = Number(process.env.OPKIT_PROPERTY_CASES ?? 3000);

// Valid pieces are repeated so that about half of the inputs are valid.
const VALID_NUMBERS = ['0', '1', '2', '3', '10', '18446744073709551615', '9007199254740993'];
const NUMBERS = [
  ...VALID_NUMBERS,
  ...VALID_NUMBERS,
  ...VALID_NUMBERS,
  '01',
  '00',
  '18446744073709551616',
  '',
];
const VALID_IDENTIFIERS = ['alpha', 'beta', 'rc', '0', '1', 'a-b', '-', 'x1', '1x', 'A'];
const IDENTIFIERS = [...VALID_IDENTIFIERS, ...VALID_IDENTIFIERS, '01', '00', '', 'a_b', 'Ü'];
const JUNK = [' ', 'v', '=', '.', '+', '-', '..', 'x', '*', '\t'];

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

function identifiers(random: Random): string {
  return Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(random, IDENTIFIERS)).join('.');
}

function version(random: Random): string {
  let text = [pick(random, NUMBERS), pick(random, NUMBERS), pick(random, NUMBERS)]
    .slice(0, random() < 0.9 ? 3 : 1 + Math.floor(random() * 3))
    .join('.');
  if (random() < 0.4) text += `-${identifiers(random)}`;
  if (random() < 0.3) text += `+${identifiers(random)}`;
  if (random() < 0.08) {
    const at = Math.floor(random() * (text.length + 1));
    text = text.slice(0, at) + pick(random, JUNK) + text.slice(at);
  }
  return text;
}

const WILDCARDS = ['1.x', '1.2.x', '1.x.x', 'x', '1.X', '2.*'];
const VALID_OPERATORS = ['', '=', '==', '!=', '!', '>', '>=', '<', '<='];
const OPERATORS = [...VALID_OPERATORS, ...VALID_OPERATORS, '=>', '~', '^'];

function range(random: Random): string {
  const comparators = () =>
    Array.from({ length: 1 + Math.floor(random() * 2) }, () => {
      const roll = random();
      const small = () => pick(random, ['0', '1', '2', '10']);
      const operand =
        roll < 0.15
          ? pick(random, WILDCARDS)
          : roll < 0.8
            ? `${small()}.${small()}.${small()}${random() < 0.2 ? '-beta.1' : ''}`
            : version(random);
      return `${pick(random, OPERATORS)}${random() < 0.1 ? ' ' : ''}${operand}`;
    }).join(pick(random, [' ', ' ', '  ']));
  return Array.from({ length: 1 + Math.floor(random() * 2) }, comparators).join(
    pick(random, [' || ', '||', ' |']),
  );
}

/** Versions blang accepts, to test ranges against. */
const PROBES = [
  '0.0.0',
  '1.0.0',
  '1.0.0-alpha',
  '1.2.3',
  '1.2.4',
  '1.5.0-beta.1',
  '2.0.0-rc.1',
  '2.0.0',
  '10.0.0',
];

const outcome = <T>(fn: () => T): { ok: true; value: T } | { ok: false; error: string } => {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
};

/** The generator is worth something only if it makes plenty of both valid and invalid inputs. */
function expectBothOutcomes(answers: readonly { ok: boolean }[]): void {
  const accepted = answers.filter((a) => a.ok).length / answers.length;
  expect(accepted).toBeGreaterThan(0.2);
  expect(accepted).toBeLessThan(0.8);
}

describe('semver agrees with blang/semver v4', () => {
  it(`on ${CASES} generated versions (seed ${SEED})`, async () => {
    const random = prng(SEED);
    const inputs = Array.from({ length: CASES }, () => version(random));
    const theirs = await askGoParsers(inputs.map((input) => ({ mode: 'semver-version', input })));
    const disagreements = inputs.flatMap((input, i) => {
      const ours = outcome(() => formatVersion(parseVersion(input)));
      return JSON.stringify(ours) === JSON.stringify(theirs[i]) ? [] : [{ input, ours, theirs: theirs[i] }];
    });
    expect(disagreements.slice(0, 5), `seed ${SEED}: ${disagreements.length} disagreements`).toEqual([]);
    expectBothOutcomes(theirs);
  }, 300_000);

  it(`on ${CASES} generated ranges, and what they include (seed ${SEED})`, async () => {
    const random = prng(SEED + 1);
    const inputs = Array.from({ length: CASES }, () => range(random));
    const theirs = await askGoParsers(
      inputs.map((input) => ({ mode: 'semver-range', input, versions: PROBES })),
    );
    const disagreements = inputs.flatMap((input, i) => {
      const ours = outcome(() => {
        const parsed = parseRange(input);
        return PROBES.map((p) => rangeIncludes(parsed, parseVersion(p)));
      });
      return JSON.stringify(ours) === JSON.stringify(theirs[i]) ? [] : [{ input, ours, theirs: theirs[i] }];
    });
    expect(disagreements.slice(0, 5), `seed ${SEED}: ${disagreements.length} disagreements`).toEqual([]);
    expectBothOutcomes(theirs);
  }, 300_000);
});
