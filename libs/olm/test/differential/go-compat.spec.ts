import { prng } from '@opkit/controller-runtime/testing';
import { askGoParsers, type GoParserAnswer } from '@opkit/test-cluster';
import { describe, expect, it } from 'vitest';
import { readAnnotationsFile } from '../../src/bundle/annotations-file.js';
import { parseYamlDocuments, toGoYaml } from '../../src/bundle/yaml.js';
import { goBoolVerbOfJsonInterface, goFormatJsonInterface } from '../../src/go-compat/go-format.js';
import { goJsonMarshal } from '../../src/go-compat/go-json.js';
import { parseRequestUri } from '../../src/go-compat/index.js';
import { encodeGoYaml } from '../../src/go-compat/yaml-emit.js';
import { yamlDocumentToJson } from '../../src/go-compat/yaml-json.js';

// Where opkit reads (and writes) as leniently as the Go tools, against the Go libraries themselves: go-yaml behind
// sigs.k8s.io/yaml for quoted scalars, string targets and the quoting of what it writes, net/url for request URIs,
// encoding/json and fmt for what opkit writes as Go does.

const SEED = Number(process.env.OPKIT_PROPERTY_SEED ?? 20261123);

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

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

// No escaped line break (a trailing backslash): before a blank line the `yaml` package folds it unlike go-yaml.
const WORDS = [
  'a long',
  'description',
  "it''s",
  'escaped \\"quote\\"',
  '',
  'x: y',
  '# not a comment',
  '- item',
];

/** A quoted scalar over several lines, each continuation indented anywhere from column 0 to past the quote. */
function quotedDocument(random: Random): string {
  const double = random() < 0.6;
  const words = (n: number) =>
    Array.from({ length: n }, () => pick(random, WORDS))
      .filter((w) => double || (!w.includes('\\') && !w.includes('"')))
      .map((w) => (double ? w : w.replaceAll("''", "'").replaceAll("'", "''")))
      .join(' ');
  const indent = pick(random, ['', '  ', '    ']);
  const lines = [`${indent}key: ${double ? '"' : "'"}${words(2)}`];
  for (let i = 0; i < 1 + Math.floor(random() * 3); i++) {
    lines.push(
      `${' '.repeat(Math.floor(random() * (indent.length + 8)))}${words(1 + Math.floor(random() * 2))}`,
    );
  }
  lines[lines.length - 1] += double ? '"' : "'";
  const body = `${lines.join('\n')}\nafter: ${pick(random, ['1', '"x"', 'yes'])}\n`;
  return indent === '' ? body : `outer:\n${body.replaceAll(/^(?=after)/gm, indent)}`;
}

/** Characters where JavaScript and Go write JSON or order strings differently, and some that are alike. */
const CHARACTERS = ['a', 'Z', '0', ' ', '<', '>', '&', '"', '\\', '\n', '\b', '\f', '\u0001', '\u007f', 'é'];
const WIDE_CHARACTERS = ['\u2028', '\u2029', '\ue000', '\uffff', '\u{1f600}', '\u{10ffff}'];
const LONE_SURROGATES = ['\ud800', '\udfff'];
/** Numbers either side of the magnitudes where %v and encoding/json switch to an exponent. */
const NUMBERS = [
  0, 1, -1, 100, 123456.7, 999999, 1e6, 1234567, 0.5, 0.0001, 0.00001, 1e-7, -2.5e-8, 1e20, 1e21,
];

function jsonString(random: Random, characters: readonly string[]): string {
  return Array.from({ length: Math.floor(random() * 5) }, () => pick(random, characters)).join('');
}

/**
 * A JSON value of strings, numbers, booleans, nulls, arrays and objects drawn from the cases above. Keys hold no
 * lone surrogate: Go decodes every one to U+FFFD, so two such keys would be one to Go and two to JavaScript.
 */
function jsonValue(random: Random, depth = 0): unknown {
  const kind = Math.floor(random() * (depth > 2 ? 4 : 6));
  if (kind === 0) return jsonString(random, [...CHARACTERS, ...WIDE_CHARACTERS, ...LONE_SURROGATES]);
  if (kind === 1) return pick(random, NUMBERS);
  if (kind === 2) return random() < 0.5;
  if (kind === 3) return null;
  const size = Math.floor(random() * 4);
  if (kind === 4) return Array.from({ length: size }, () => jsonValue(random, depth + 1));
  return Object.fromEntries(
    Array.from({ length: size }, () => [
      jsonString(random, [...CHARACTERS, ...WIDE_CHARACTERS]),
      jsonValue(random, depth + 1),
    ]),
  );
}

/** The UTF-8 a string is written as: a lone surrogate becomes U+FFFD, as in every file and message. */
const written = (text: string): string => Buffer.from(text).toString();

describe('go-compat agrees with the Go libraries', () => {
  it('writes JSON as encoding/json does: json.Marshal, and an Encoder without HTML escaping, indented or not', async () => {
    const random = prng(SEED);
    const inputs = Array.from({ length: 2000 }, () => JSON.stringify(jsonValue(random)));
    const theirs = await askGoParsers(inputs.map((input) => ({ mode: 'json-encode', input })));
    const ours = inputs.map((input) => {
      const value: unknown = JSON.parse(input);
      return {
        ok: true,
        value: {
          marshal: goJsonMarshal(value),
          encoder: goJsonMarshal(value, { escapeHtml: false }),
          indented: goJsonMarshal(value, { escapeHtml: false, indent: '    ' }),
        },
      };
    });
    expect(ours).toStrictEqual(theirs);
  }, 300_000);

  it("formats what encoding/json decodes into interface{} as fmt's %v and %t do", async () => {
    const random = prng(SEED + 1);
    const inputs = Array.from({ length: 2000 }, () => JSON.stringify(jsonValue(random)));
    const theirs = await askGoParsers(inputs.map((input) => ({ mode: 'fmt-json', input })));
    const ours = inputs.map((input) => {
      const value: unknown = JSON.parse(input);
      const v = written(goFormatJsonInterface(value));
      return { ok: true, value: { v, t: written(goBoolVerbOfJsonInterface(value)) } };
    });
    expect(ours).toStrictEqual(theirs);
  }, 300_000);

  it('reads quoted scalars continued at any indentation as sigs.k8s.io/yaml does', async () => {
    const random = prng(SEED);
    const inputs = Array.from({ length: 1000 }, () => quotedDocument(random));
    const theirs = await askGoParsers(inputs.map((input) => ({ mode: 'yaml', input })));
    const disagreements = inputs.flatMap((input, i) => {
      const answer = theirs[i]!;
      let catalog: unknown;
      try {
        catalog = yamlDocumentToJson(input);
      } catch (error) {
        catalog = { error: (error as Error).message };
      }
      const bundle = parseYamlDocuments(input)[0];
      const expected = answer.ok ? canonical(JSON.parse(String(answer.value))) : 'error';
      const ours = [
        (catalog as { error?: string }).error === undefined ? canonical(catalog) : 'error',
        bundle?.ok ? canonical(bundle.value) : 'error',
      ];
      return ours.every((o) => o === expected) ? [] : [{ input, ours, theirs: answer }];
    });
    expect(disagreements.slice(0, 5), `seed ${SEED}: ${disagreements.length} disagreements`).toEqual([]);
    expect(theirs.filter((a) => a.ok).length).toBeGreaterThan(200);
  }, 300_000);

  it('reads annotation values into strings as yaml.Unmarshal into map[string]string does', async () => {
    const values = [
      'true',
      'yes',
      'Off',
      '8080',
      '0777',
      '0x1F',
      '0o17',
      '1_000',
      '4.10',
      '1.0',
      '1e3',
      '100000.5',
    ];
    const more = [
      '-0.1',
      '3.14159265358979',
      '.inf',
      '-.Inf',
      '.nan',
      '~',
      '',
      '"quoted"',
      "'017'",
      '2021-01-01',
    ];
    const inputs = [...values, ...more].map((v) => `annotations:\n  key: ${v}\n`);
    const theirs = await askGoParsers(
      inputs.map((input) => ({ mode: 'yaml-strings', input: input.slice(13) })),
    );
    const ours = inputs.map((input) => {
      const read = readAnnotationsFile(new TextEncoder().encode(input));
      return read.ok ? { ok: true, value: read.annotations } : { ok: false, error: read.reason };
    });
    expect(ours.map((o) => (o.ok ? o.value : 'error'))).toStrictEqual(
      theirs.map((a: GoParserAnswer) => (a.ok ? a.value : 'error')),
    );
  }, 300_000);

  it('names map keys go-yaml reads as numbers as sigs.k8s.io/yaml does', async () => {
    const keys = [
      '1',
      '017',
      '0x1F',
      '1_000',
      '1.0',
      '1e7',
      '0.1',
      '3.14159265358979',
      '-2.5e-8',
      '.inf',
      '-.Inf',
      '.nan',
    ];
    const inputs = keys.map((k) => `${k}: x\n`);
    const theirs = await askGoParsers(inputs.map((input) => ({ mode: 'yaml', input })));
    expect(inputs.map((input) => Object.keys(yamlDocumentToJson(input) as object))).toStrictEqual(
      theirs.map((a) => Object.keys(JSON.parse(String(a.ok && a.value)) as object)),
    );
  }, 300_000);

  it('quotes what it writes as sigs.k8s.io/yaml JSONToYAML does (dates, date-times with and without a zone)', async () => {
    const strings = [
      '2021-01-01T00:00:00',
      '2021-01-01T00:00:00Z',
      '2021-01-01t00:00:00.5+01:00',
      '2021-1-1T1:2:3',
      '2021-01-01 00:00:00',
      '2021-01-01   10:20:30,5',
      '2021-01-01 00:00:00 +01:00',
      '2021-01-01',
      '2021-02-30',
      '2021-13-01',
      '2021-01-01T24:00:00Z',
      '2021-01-01T00:00:00+0100',
      '20210-01-01',
      '12:30:00',
      '1:20',
      'v2021-01-01',
    ];
    const theirs = await askGoParsers(
      strings.map((s) => ({ mode: 'json-to-yaml', input: JSON.stringify({ createdAt: s }) })),
    );
    expect(strings.map((s) => toGoYaml({ createdAt: s }))).toStrictEqual(theirs.map((a) => a.ok && a.value));
    expect(strings.map((s) => encodeGoYaml({ createdAt: s }))).toStrictEqual(
      theirs.map((a) => a.ok && a.value),
    );
  }, 300_000);

  it('accepts and refuses request URIs as net/url ParseRequestURI does, with its messages', async () => {
    const urls = [
      'https://example.com/docs/getting started.html',
      'https://example.com/search?q=a b|c',
      'https://example.com/a"b<c>{d}^`',
      'https://exa mple.com/',
      'https://example.com:80a/',
      'https://example.com:8080/x',
      'https://user:p@ss@example.com/',
      'https://us er@example.com/',
      'https://[::1]:8443/x',
      'https://[fe80::1%25en0]/',
      'https://[1.2.3.4]/',
      'https://[::1/',
      'https://a[::1]/',
      'https://example.com/%zz',
      'https://ex%41mple.com/',
      'https://example.com/%41',
      'mailto:someone@example.com',
      'http://a:b:c/',
      'ftp://a:1:2/',
      'example.com/path',
      '/relative/path',
      '*',
      '',
      ':8080',
      'https://example.com/\x7f',
      'https://example.com/tab\there',
      'HTTPS://Example.COM/Path',
      'https://ex^ample.com/',
      'https://例え.jp/パス',
      'https://example.com?x',
      'https:',
      'https://',
    ];
    const theirs = await askGoParsers(urls.map((input) => ({ mode: 'request-uri', input })));
    const ours = urls.map((url) => {
      const parsed = parseRequestUri(url);
      return parsed.ok
        ? { ok: true, value: { scheme: parsed.scheme, host: parsed.host } }
        : { ok: false, error: parsed.error };
    });
    expect(ours).toStrictEqual(theirs);
  }, 300_000);
});
