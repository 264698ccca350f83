// `opkit catalog diff` as users run it: the CLI in a git repository of its own, comparing the catalog of the
// last commit with the one in the work tree.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { workspaceRoot } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const opkit = join(workspaceRoot, 'tools', 'opkit', 'bin', 'opkit.js');
const repo = mkdtempSync(join(tmpdir(), 'opkit-catalog-diff-'));
afterAll(() => rmSync(repo, { recursive: true, force: true }));

/** Runs opkit in the repository; resolves with its exit code and output (never rejects). */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [opkit, ...args], { cwd: repo });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

function writeCatalog(versions: readonly string[]): void {
  const blobs = [
    { schema: 'olm.package', name: 'demo', defaultChannel: 'stable' },
    {
      schema: 'olm.channel',
      package: 'demo',
      name: 'stable',
      entries: versions.map((v, i) => ({
        name: `demo.v${v}`,
        ...(i > 0 ? { replaces: `demo.v${versions[i - 1]}` } : {}),
      })),
    },
    ...versions.map((v) => ({
      schema: 'olm.bundle',
      package: 'demo',
      name: `demo.v${v}`,
      image: `example.com/demo-bundle:v${v}`,
      properties: [{ type: 'olm.package', value: { packageName: 'demo', version: v } }],
    })),
  ];
  mkdirSync(join(repo, 'configs', 'demo'), { recursive: true });
  writeFileSync(
    join(repo, 'configs', 'demo', 'catalog.json'),
    blobs.map((b) => JSON.stringify(b)).join('\n'),
  );
}

beforeAll(() => {
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], {
      cwd: repo,
    });
  git('init', '-q');
  writeCatalog(['1.0.0']);
  git('add', '-A');
  git('commit', '-q', '-m', 'demo 1.0.0');
  writeCatalog(['1.0.0', '1.1.0']);
});

describe('opkit catalog diff', () => {
  it('prints what the work tree adds to the last commit, and exits 1 with --exit-code', async () => {
    const text = await cli('catalog', 'diff', 'git:HEAD:configs', 'configs');
    expect(text).toEqual({
      code: 0,
      stdout: [
        'package demo',
        '  + channel stable: entry demo.v1.1.0 added',
        '  + channel stable: edge demo.v1.0.0 → demo.v1.1.0 (replaces) added',
        '  + bundle demo.v1.1.0 (1.1.0) added',
        '',
      ].join('\n'),
      stderr: '',
    });
    const json = await cli('catalog', 'diff', 'git:HEAD:configs', 'configs', '-o', 'json', '--exit-code');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).packages[0].bundlesAdded).toEqual([
      { name: 'demo.v1.1.0', version: '1.1.0' },
    ]);
    expect(await cli('catalog', 'diff', 'configs', 'configs', '--exit-code')).toMatchObject({
      code: 0,
      stdout: 'no changes\n',
    });
  });

  it('fails in one line naming the side whose catalog does not load', async () => {
    const result = await cli('catalog', 'diff', 'git:HEAD~3:configs', 'configs');
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('opkit: old catalog git:HEAD~3:configs: unknown revision HEAD~3');
    const missing = await cli('catalog', 'diff', 'configs', 'nowhere');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^opkit: new catalog nowhere: /);
  });
});
