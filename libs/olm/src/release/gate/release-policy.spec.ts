import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseReleasePolicy, ReleasePolicyError, readReleasePolicy } from './release-policy.js';
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
