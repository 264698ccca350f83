import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCatalogSource } from './catalog-source.js';
import { parseGitSource, readGitCatalog } from './git-catalog-source.js';

const scratch = mkdtempSync(join(tmpdir(), 'opkit-git-source-'));
const repo = join(scratch, 'repo');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

const packageBlob = (defaultChannel: string) =>
  `${JSON.stringify({ schema: 'olm.package', name: 'demo', defaultChannel })}\n`;

/** Two commits of catalog/configs: v1 with default channel alpha, then stable; a symlink only in the second. */
beforeAll(() => {
  mkdirSync(join(repo, 'catalog', 'configs', 'demo'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'catalog', 'configs', 'demo', 'catalog.json'), packageBlob('alpha'));
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'first');
  git(repo, 'tag', 'v1');
  writeFileSync(join(repo, 'catalog', 'configs', 'demo', 'catalog.json'), packageBlob('stable'));
  mkdirSync(join(repo, 'linked'));
  symlinkSync('../catalog/configs/demo/catalog.json', join(repo, 'linked', 'catalog.json'));
  git(repo, 'add', '-A');
  // A submodule, as a gitlink entry to the first commit.
  const first = git(repo, 'rev-parse', 'HEAD').trim();
  git(repo, 'update-index', '--add', '--cacheinfo', `160000,${first},modules/demo`);
  git(repo, 'commit', '-q', '-m', 'second');
  // A change not committed: what revisions have, not the work tree, is read.
  writeFileSync(join(repo, 'catalog', 'configs', 'demo', 'catalog.json'), packageBlob('uncommitted'));
});

const read = (dir: string) => readFileSync(join(dir, 'demo', 'catalog.json'), 'utf8');

describe('git:<revision>:<path> catalog sources', () => {
  it('reads the directory as each revision has it into a temp dir, which dispose removes', async () => {
    const status = git(repo, 'status', '--porcelain');
    const before = await readGitCatalog('git:HEAD~1:catalog/configs', { cwd: repo });
    const tagged = await readGitCatalog('git:v1:catalog/configs', { cwd: repo });
    const head = await readGitCatalog('git:HEAD:catalog/configs/', { cwd: repo });
    expect(read(before.dir)).toBe(packageBlob('alpha'));
    expect(read(tagged.dir)).toBe(packageBlob('alpha'));
    expect(read(head.dir)).toBe(packageBlob('stable'));
    expect(before.description).toBe('git:HEAD~1:catalog/configs');
    for (const source of [before, tagged, head]) {
      await source.dispose();
      expect(existsSync(source.dir)).toBe(false);
    }
    // The repository is only read: its work tree is as it was.
    expect(status).toContain(' M catalog/configs/demo/catalog.json\n');
    expect(git(repo, 'status', '--porcelain')).toBe(status);
  });

  it('takes the path as seen from the current directory, like a directory source', async () => {
    const source = await readGitCatalog('git:HEAD:configs', { cwd: join(repo, 'catalog') });
    expect(read(source.dir)).toBe(packageBlob('stable'));
    await source.dispose();
    const parent = await readGitCatalog('git:HEAD:..', { cwd: join(repo, 'catalog', 'configs', 'demo') });
    expect(read(parent.dir)).toBe(packageBlob('stable'));
    await parent.dispose();
  });

  it('refuses a symlink or a submodule in the tree, naming it, the revision and the path', async () => {
    await expect(readGitCatalog('git:HEAD:linked', { cwd: repo })).rejects.toThrow(
      'git:HEAD:linked: linked at HEAD holds a symlink, catalog.json, which a catalog cannot',
    );
    await expect(readGitCatalog('git:HEAD:modules', { cwd: repo })).rejects.toThrow(
      'git:HEAD:modules: modules at HEAD holds a submodule, demo, which a catalog cannot',
    );
  });

  it('says in one line what is wrong with the revision, the path or the repository', async () => {
    const cases: Array<[string, string, string]> = [
      ['git:v9:catalog/configs', repo, 'git:v9:catalog/configs: unknown revision v9'],
      ['git:HEAD~1:linked', repo, 'git:HEAD~1:linked: linked is not in revision HEAD~1'],
      [
        'git:HEAD:catalog/configs/demo/catalog.json',
        repo,
        'catalog/configs/demo/catalog.json at HEAD is not a directory',
      ],
      ['git:HEAD:../elsewhere', repo, 'git:HEAD:../elsewhere: ../elsewhere is outside the repository'],
      ['git:HEAD:catalog', scratch, 'git:HEAD:catalog: the current directory is not in a git repository'],
    ];
    for (const [source, cwd, message] of cases) {
      await expect(readGitCatalog(source, { cwd }), source).rejects.toThrow(message);
    }
    expect(() => parseGitSource('git:HEAD')).toThrow('a git source is git:<revision>:<path>');
  });

  it('tells a shallow clone without the revision to fetch more history', async () => {
    const shallow = join(scratch, 'shallow');
    git(scratch, 'clone', '-q', '--depth', '1', `file://${repo}`, shallow);
    await expect(readGitCatalog('git:HEAD~1:catalog/configs', { cwd: shallow })).rejects.toThrow(
      'revision HEAD~1 is not in this shallow clone; fetch more history (git fetch --unshallow)',
    );
  });

  it('refuses a tree over the limits, naming the revision and path', async () => {
    await expect(
      readGitCatalog('git:HEAD:catalog/configs', { cwd: repo, limits: { maxBytes: 10 } }),
    ).rejects.toThrow(
      'git:HEAD:catalog/configs: catalog/configs at HEAD holds more than 10 bytes (at demo/catalog.json)',
    );
    await expect(readGitCatalog('git:HEAD:.', { cwd: repo, limits: { maxEntries: 0 } })).rejects.toThrow(
      'holds more than 0 files',
    );
  });
});

describe('a git source read while the command is stopped', () => {
  /** The temp dirs of git sources in `dir`, where os.tmpdir() points while a test reads. */
  const gitTempDirs = (dir: string): string[] =>
    readdirSync(dir).filter((name) => name.startsWith('opkit-git-catalog-'));

  it('stops between files when aborted, removes its temp dir and throws the reason', async () => {
    // Many files of one blob: git answers with tens of megabytes, read chunk by chunk.
    const large = join(scratch, 'large');
    const configs = join(large, 'configs');
    mkdirSync(configs, { recursive: true });
    const blob = `${JSON.stringify({ schema: 'olm.package', name: 'demo', description: 'x'.repeat(16_000) })}\n`;
    for (let i = 0; i < 2000; i++) writeFileSync(join(configs, `p${i}.json`), blob);
    git(large, 'init', '-q', '-b', 'main');
    git(large, 'add', '-A');
    git(large, 'commit', '-q', '-m', 'large');
    const temp = join(scratch, 'tmp');
    mkdirSync(temp);
    const tmpBefore = process.env.TMPDIR;
    process.env.TMPDIR = temp;
    const controller = new AbortController();
    // Aborted as soon as the first file has been written into the temp dir.
    const watcher = setInterval(() => {
      const [dir] = gitTempDirs(temp);
      if (dir !== undefined && readdirSync(join(temp, dir)).length > 0)
        controller.abort(new Error('stopped'));
    }, 1);
    try {
      const reading = readGitCatalog('git:HEAD:configs', { cwd: large, signal: controller.signal });
      await expect(reading).rejects.toThrow('stopped');
      expect(controller.signal.aborted).toBe(true);
      expect(gitTempDirs(temp)).toEqual([]);
    } finally {
      clearInterval(watcher);
      process.env.TMPDIR = tmpBefore;
      if (tmpBefore === undefined) delete process.env.TMPDIR;
    }
  });

  it('does not start when already aborted, as resolveCatalogSource passes the signal on', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stopped before'));
    await expect(
      readGitCatalog('git:HEAD:catalog/configs', { cwd: repo, signal: controller.signal }),
    ).rejects.toThrow('stopped before');
    await expect(
      resolveCatalogSource('git:HEAD:catalog/configs', { signal: controller.signal }),
    ).rejects.toThrow('stopped before');
  });
});
