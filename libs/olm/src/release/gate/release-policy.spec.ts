import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  MAX_RELEASE_POLICY_BYTES,
  parseReleasePolicy,
  ReleasePolicyError,
  readReleasePolicy,
} from './release-policy.js';
import { ruleMatchesGlob } from './rule-glob.js';

describe('release policy files', () => {
  it('read fail and ignore lists of rule globs', () => {
    expect(
      parseReleasePolicy(
        'fail: [crd/*, upgrade/stranded, permission/escalation]\nignore:\n  - diff/*\n',
        'policy.yaml',
      ),
    ).toEqual({ fail: ['crd/*', 'upgrade/stranded', 'permission/escalation'], ignore: ['diff/*'] });
  });

  it('an empty file, or one without fail, leaves failing to the severity', () => {
    expect(parseReleasePolicy('', 'policy.yaml')).toEqual({ ignore: [] });
    expect(parseReleasePolicy('# nothing yet\n', 'policy.yaml')).toEqual({ ignore: [] });
    expect(parseReleasePolicy('ignore: [permission/removed]', 'policy.yaml')).toEqual({
      ignore: ['permission/removed'],
    });
  });

  const refused: [string, string, string][] = [
    ['an unknown field', 'fails: [crd/*]', 'policy.yaml: unknown field fails (a policy has fail and ignore)'],
    [
      'a glob that is no rule',
      'fail: [crd/*, Permission Escalation]',
      'policy.yaml: fail[1]: must be a rule glob such as crd/* or permission/escalation',
    ],
    ['a list that is a string', 'ignore: diff/*', 'policy.yaml: ignore: must be array'],
    ['a list of numbers', 'fail: [1]', 'policy.yaml: fail[0]: must be string'],
    ['a document that is a list', '- crd/*', 'policy.yaml: must be a mapping with fail and ignore'],
    ['YAML that does not parse', 'fail: [crd/*', 'policy.yaml: not YAML: '],
  ];
  it.each(refused)('refuse %s, naming the file and the field', (_, text, message) => {
    const parse = () => parseReleasePolicy(text, 'policy.yaml');
    expect(parse).toThrow(ReleasePolicyError);
    expect(() => parse()).toThrow(message);
  });

  const dir = mkdtempSync(join(tmpdir(), 'opkit-policy-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it('are read from a file, a missing one said in one line', async () => {
    const file = join(dir, 'release-policy.yaml');
    writeFileSync(file, 'fail: [permission/*]\n');
    await expect(readReleasePolicy(file)).resolves.toEqual({ fail: ['permission/*'], ignore: [] });
    await expect(readReleasePolicy(join(dir, 'missing.yaml'))).rejects.toThrow(
      `${join(dir, 'missing.yaml')}: cannot read the policy (ENOENT)`,
    );
  });

  it('refuse what is not a regular file before reading it, such as a device that never ends', async () => {
    await expect(readReleasePolicy(dir)).rejects.toThrow(
      `${dir}: not a regular file; a policy is a YAML file`,
    );
    if (process.platform !== 'win32') {
      await expect(readReleasePolicy('/dev/zero')).rejects.toThrow(
        '/dev/zero: not a regular file; a policy is a YAML file',
      );
    }
  });

  it('refuse a file over 1 MiB, naming it and its size', async () => {
    const file = join(dir, 'large.yaml');
    writeFileSync(file, `# ${'x'.repeat(MAX_RELEASE_POLICY_BYTES)}\n`);
    await expect(readReleasePolicy(file)).rejects.toThrow(
      `${file}: ${MAX_RELEASE_POLICY_BYTES + 3} bytes, larger than a policy may be (1048576 bytes)`,
    );
  });

  it('refuse aliases that expand without bound, in one line naming the file', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++) {
      const prev = String.fromCharCode(96 + i);
      lines.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${prev}`).join(', ')}]`,
      );
    }
    const parse = () => parseReleasePolicy(`${lines.join('\n')}\n`, 'policy.yaml');
    expect(parse).toThrow(ReleasePolicyError);
    expect(parse).toThrow(/^policy\.yaml: not YAML: [^\n]*alias[^\n]*$/i);
  });

  it('refuse nesting deeper than any policy needs, before parsing it', () => {
    const parse = () => parseReleasePolicy(`fail: ${'['.repeat(100_000)}`, 'policy.yaml');
    expect(parse).toThrow(ReleasePolicyError);
    expect(parse).toThrow('policy.yaml: line 1: nested deeper than 500 levels, which no policy needs');
  });
});

describe('rule globs', () => {
  const cases: [string, string, boolean][] = [
    ['permission/escalation', 'permission/escalation', true],
    ['permission/escalation', 'permission/escalations', false],
    ['permission/*', 'permission/cluster-scope', true],
    ['permission/*', 'crd/field-removed', false],
    ['*/escalation', 'permission/escalation', true],
    ['*', 'upgrade/stranded', true],
    ['crd/*', 'crd-extra/field-removed', false],
    ['cel/rule-*', 'cel/rule-added', true],
    ['cel/rule-*', 'cel/cost-exceeded', false],
  ];
  it.each(cases)('%s matches %s: %s', (glob, rule, matches) => {
    expect(ruleMatchesGlob(glob, rule)).toBe(matches);
  });
});
