import { prng } from '@opkit/controller-runtime/testing';
import { askGoParsers, type GoParserAnswer } from '@opkit/test-cluster';
import { describe, expect, it } from 'vitest';
import { readAnnotationsFile } from '../../src/bundle/annotations-file.js';
import { parseYamlDocuments, toGoYaml } from '../../src/bundle/yaml.js';
import { encodeGoYaml } from '../../src/catalog/yaml-emit.js';
import { yamlDocumentToJson } from '../../src/catalog/yaml-json.js';
import { parseRequestUri } from '../../src/go-compat/index.js';

// Where opkit reads (and writes) as leniently as the Go tools, against the Go libraries themselves: go-yaml behind
// sigs.k8s.io/yaml for quoted scalars, string targets and the quoting of what it writes, net/url for request URIs.

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

describe('go-compat agrees with the Go libraries', () => {
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
