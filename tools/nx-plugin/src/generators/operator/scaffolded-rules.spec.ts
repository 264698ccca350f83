import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTreeWithEmptyWorkspace } from '@nx/devkit/testing';
import type { RuleGroup } from '@opkit/controller-runtime/monitoring';
import { promtoolBinary, promtoolTestRules, untestedRules, withRuleExpr } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorGenerator } from './operator.js';

// The rules a new operator starts with, and their promtool tests, evaluated as the generated rules.spec.ts
// does (that spec runs in the generated workspace; test/scaffold.spec.ts runs it there).

const monitoringSource = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  '..',
  '..',
  'libs',
  'controller-runtime',
  'src',
  'monitoring',
  'index.ts',
);

let dir: string;
let groups: readonly RuleGroup[];
let testFile: string;
let promtool: string;

beforeAll(async () => {
  const tree = createTreeWithEmptyWorkspace();
  tree.write('package.json', JSON.stringify({ name: '@acme/source', workspaces: ['operators/*'] }));
  await operatorGenerator(tree, { name: 'postgres-lite' });
  dir = mkdtempSync(join(tmpdir(), 'scaffolded-rules-'));
  const read = (file: string) => tree.read(`operators/postgres-lite/src/monitoring/${file}`, 'utf-8') ?? '';
  // Outside the workspace the runtime's subpath does not resolve: the rules import its sources directly.
  writeFileSync(
    join(dir, 'rules.ts'),
    read('rules.ts').replace("'@opkit/controller-runtime/monitoring'", JSON.stringify(monitoringSource)),
  );
  testFile = join(dir, 'rules.test.yaml');
  writeFileSync(testFile, read('rules.test.yaml'));
  const rules = (await import(join(dir, 'rules.ts'))) as { postgresLiteRuleGroups: readonly RuleGroup[] };
  groups = rules.postgresLiteRuleGroups;
  promtool = await promtoolBinary();
}, 1_800_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a new operator’s alert rules', () => {
  it('each have a promtool test case naming them', () => {
    expect(groups.flatMap((g) => g.rules).length).toBe(2);
    expect(untestedRules(groups, [testFile]).join('\n')).toBe('');
  });

  it('pass the promtool rule tests scaffolded beside them', async () => {
    const run = await promtoolTestRules(promtool, groups, [testFile]);
    expect(run.passed, run.output).toBe(true);
  });

  it('fail them when the operator-down alert can never fire', async () => {
    const broken = withRuleExpr(groups, 'PostgresLiteOperatorDown', (expr) => expr.replace('== 0', '< 0'));
    const run = await promtoolTestRules(promtool, broken, [testFile]);
    expect(run.passed, run.output).toBe(false);
    expect(run.output).toContain('PostgresLiteOperatorDown');
  });
});
