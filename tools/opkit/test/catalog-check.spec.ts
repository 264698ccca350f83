// `opkit catalog check` as users run it: the built CLI on this repository's catalog, against a catalog that
// lacks the memcached operator (so both of its upgrade edges are new), with and without a policy.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { releasedData, workspaceRoot } from '@opkit/test-cluster';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const opkit = join(workspaceRoot, 'tools', 'opkit', 'bin', 'opkit.js');
const scratch = mkdtempSync(join(tmpdir(), 'opkit-catalog-check-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A catalog of the Redis operator alone: the release under test adds every Memcached edge to it. */
const previous = join(scratch, 'previous');
cpSync(join(releasedData.catalogConfigs, 'redis-operator'), join(previous, 'redis-operator'), {
  recursive: true,
});

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [opkit, ...args], { cwd: workspaceRoot });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const SA = 'service account memcached-operator-controller-manager';

describe('opkit catalog check', () => {
  it('passes the catalog, listing what the bundles accept and every other finding', async () => {
    const result = await cli('catalog', 'check', 'catalog/configs', '--previous', previous);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('PASS: 0 failing, 1 accepted, 5 other on 2 new upgrade edges');
    expect(lines).toContain(
      `  info    permission/rule-added: memcached-operator 0.1.0 → 0.2.0: ${SA} gains cluster-wide create on tokenreviews.authentication.k8s.io`,
    );
  });

  it('exits 1 with the report when the policy fails a finding, in every format', async () => {
    const policy = join(scratch, 'policy.yaml');
    writeFileSync(policy, '# new rules need a review\nfail: [permission/rule-added]\n');
    const text = await cli('catalog', 'check', 'catalog/configs', '--previous', previous, '--policy', policy);
    expect(text.code).toBe(1);
    expect(text.stdout.split('\n')[0]).toBe('FAIL: 3 failing, 0 accepted, 3 other on 2 new upgrade edges');
    const json = await cli(
      'catalog',
      'check',
      'catalog/configs',
      '--previous',
      previous,
      '--policy',
      policy,
      '-o',
      'json',
    );
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { verdict: string; failing: { rule: string }[] };
    expect(report.verdict).toBe('fail');
    expect(report.failing.map((f) => f.rule)).toEqual([
      'permission/rule-added',
      'permission/rule-added',
      'permission/rule-added',
    ]);
    const markdown = await cli(
      'catalog',
      'check',
      'catalog/configs',
      '--previous',
      previous,
      '--policy',
      policy,
      '-o',
      'markdown',
    );
    expect(markdown.stdout.split('\n')[0]).toBe('## Release check: fails');
  });

  it('says in one line what is wrong with a policy or a catalog', async () => {
    const policy = join(scratch, 'bad-policy.yaml');
    writeFileSync(policy, 'fail: [Escalations]\n');
    const bad = await cli('catalog', 'check', 'catalog/configs', '--previous', previous, '--policy', policy);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      `opkit: ${policy}: fail[0]: must be a rule glob such as crd/* or permission/escalation\n`,
    );
    const missing = await cli(
      'catalog',
      'check',
      'catalog/configs',
      '--previous',
      join(scratch, 'no-such-dir'),
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('no-such-dir');
    const noPrevious = await cli('catalog', 'check', 'catalog/configs');
    expect(noPrevious.code).toBe(1);
    expect(noPrevious.stderr).toBe("error: required option '--previous <catalog>' not specified\n");
  });
});
