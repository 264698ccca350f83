// `opkit catalog diff`, `check` and `upgrade-paths` stopped by Ctrl-C (SIGINT) or SIGTERM while a git tree is
// read into a temp dir: the command stops the reading, removes the temp dir, and ends by that signal.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workspaceRoot } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const opkit = join(workspaceRoot, 'tools', 'opkit', 'bin', 'opkit.js');
const scratch = mkdtempSync(join(tmpdir(), 'opkit-catalog-interrupt-'));
const repo = join(scratch, 'repo');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A committed catalog of many files of one large blob: git answers with tens of megabytes to be written. */
beforeAll(() => {
  const configs = join(repo, 'configs');
  mkdirSync(configs, { recursive: true });
  const blob = `${JSON.stringify({ schema: 'olm.package', name: 'demo', description: 'x'.repeat(16_000) })}\n`;
  for (let i = 0; i < 2000; i++) writeFileSync(join(configs, `p${i}.json`), blob);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], {
      cwd: repo,
    });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'large');
});

const gitTempDirs = (dir: string): string[] =>
  readdirSync(dir).filter((name) => name.startsWith('opkit-git-catalog-'));

const commands: [string, string[], NodeJS.Signals][] = [
  ['diff', ['catalog', 'diff', 'git:HEAD:configs', 'configs'], 'SIGINT'],
  ['check', ['catalog', 'check', 'configs', '--previous', 'git:HEAD:configs'], 'SIGTERM'],
  ['upgrade-paths', ['catalog', 'upgrade-paths', 'git:HEAD:configs'], 'SIGINT'],
];

describe('catalog commands stopped while a git source is read', () => {
  it.each(commands)('catalog %s removes the temp dir and ends by the signal', async (_, args, signal) => {
    const temp = mkdtempSync(join(scratch, 'tmp-'));
    const child = spawn(process.execPath, [opkit, ...args], {
      cwd: repo,
      env: { ...process.env, TMPDIR: temp },
      stdio: 'ignore',
    });
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    // The signal comes once the reading has written its first file.
    await expect
      .poll(
        () => {
          const [dir] = gitTempDirs(temp);
          return dir !== undefined && readdirSync(join(temp, dir)).length > 0;
        },
        { timeout: 30_000, interval: 5 },
      )
      .toBe(true);
    child.kill(signal);
    const [code, endedBy] = await exited;
    expect({ code, endedBy }).toEqual({ code: null, endedBy: signal });
    expect(gitTempDirs(temp)).toEqual([]);
  });
});
