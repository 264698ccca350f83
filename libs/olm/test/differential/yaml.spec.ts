import { prng } from '@opkit/controller-runtime/testing';
import { askGoParsers } from '@opkit/test-cluster';
import { describe, expect, it } from 'vitest';
import { yamlDocumentToJson } from '../../src/go-compat/yaml-json.js';

// Our YAML-to-JSON conversion (how catalogs are read) against sigs.k8s.io/yaml's YAMLToJSON on go-yaml v2, which
// opm uses, on generated documents: the same documents are accepted and give the same JSON. Error texts are not
// compared: ours come from another parser and only keep opm's shape.

const SEED = Number(process.env.OPKIT_PROPERTY_SEED ?? 20261123);
const CASES = Number(process.env.OPKIT_PROPERTY_CASES ?? 3000);

/** Plain scalars whose type YAML 1.1 and go-yaml decide: booleans, nulls, numbers in every base, and lookalikes. */
const PLAIN = [
  'yes',
  'no',
  'on',
  'off',
  'y',
  'n',
  'true',
  'False',
  'TRUE',
  'null',
  'Null',
  '~',
  '',
  '0',
  '-0',
  '017',
  '0o17',
  '0x1F',
  '0b101',
  '1_000',
  '+12',
  '1.5',
  '-.5',
  '1e3',
  '1.0e+3',
  '.inf',
  '-.Inf',
  '.nan',
  '2001-12-14',
  '12:30',
  '1:20',
  '18446744073709551615',
  '9223372036854775808',
  '0.1.2',
  'v1.0.0',
  'a b',
  'ü',
];
const QUOTED = ['"yes"', "'017'", '"a\\tb"', "'it''s'", '""', '"\\u00e9"'];
const KEYS = ['a', 'b', 'name', 'yes', '1', 'on', '"quoted"', 'k-e_y', '0x1'];

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

function scalar(random: Random): string {
  return random() < 0.8 ? pick(random, PLAIN) : pick(random, QUOTED);
}

function flow(random: Random, depth: number): string {
  if (depth > 2 || random() < 0.5) return scalar(random);
  if (random() < 0.5)
    return `[${Array.from({ length: Math.floor(random() * 3) }, () => flow(random, depth + 1)).join(', ')}]`;
  return `{${Array.from({ length: Math.floor(random() * 3) }, () => `${pick(random, KEYS)}: ${flow(random, depth + 1)}`).join(', ')}}`;
}

/** A block mapping, with nested blocks, sequences, anchors, aliases and merge keys. */
function document(random: Random): string {
  const lines: string[] = [];
  const anchors: string[] = [];
  const block = (indent: string, depth: number) => {
    const entries = 1 + Math.floor(random() * 3);
    for (let i = 0; i < entries; i++) {
      const key = pick(random, KEYS);
      const roll = random();
      if (depth < 2 && roll < 0.2) {
        const anchor = random() < 0.3 ? ` &x${anchors.length}` : '';
        if (anchor) anchors.push(`x${anchors.length}`);
        lines.push(`${indent}${key}:${anchor}`);
        block(`${indent}  `, depth + 1);
      } else if (depth < 2 && roll < 0.3) {
        lines.push(`${indent}${key}:`);
        for (let j = 0; j < 1 + Math.floor(random() * 2); j++) lines.push(`${indent}- ${flow(random, 1)}`);
      } else if (roll < 0.36 && anchors.length > 0) {
        lines.push(`${indent}${random() < 0.5 ? '<<' : key}: *${pick(random, anchors)}`);
      } else {
        lines.push(`${indent}${key}: ${flow(random, 0)}`);
      }
    }
  };
  block('', 0);
  return `${lines.join('\n')}\n`;
}

/** JSON text with map keys sorted, as Go writes it. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const fields = value as Record<string, unknown>;
    return `{${Object.keys(fields)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(fields[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

describe('YAML agrees with sigs.k8s.io/yaml', () => {
  it(`on ${CASES} generated documents (seed ${SEED})`, async () => {
    const random = prng(SEED);
    const inputs = Array.from({ length: CASES }, () => document(random));
    const theirs = await askGoParsers(inputs.map((input) => ({ mode: 'yaml', input })));
    const disagreements = inputs.flatMap((input, i) => {
      const answer = theirs[i]!;
      let ours: { ok: true; value: unknown } | { ok: false; error: string };
      try {
        ours = { ok: true, value: yamlDocumentToJson(input) };
      } catch (error) {
        ours = { ok: false, error: (error as Error).message };
      }
      const same = answer.ok
        ? ours.ok && canonical(ours.value) === canonical(JSON.parse(String(answer.value)))
        : !ours.ok;
      return same ? [] : [{ input, ours, theirs: answer }];
    });
    expect(disagreements.slice(0, 5), `seed ${SEED}: ${disagreements.length} disagreements`).toEqual([]);
    const accepted = theirs.filter((a) => a.ok).length / theirs.length;
    expect(accepted).toBeGreaterThan(0.2);
  }, 300_000);
});
