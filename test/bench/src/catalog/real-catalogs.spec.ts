import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { realCatalogs } from './real-catalogs.js';

describe('realCatalogs', () => {
  const root = mkdtempSync(join(tmpdir(), 'bench-real-catalogs-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo });
  const repo = join(root, 'repo');
  mkdirSync(join(repo, 'catalogs', 'v4.12', 'a'), { recursive: true });
  mkdirSync(join(repo, 'catalogs', 'v4.13', 'b'), { recursive: true });
  writeFileSync(join(repo, 'catalogs', 'v4.12', 'a', 'catalog.yaml'), 'schema: olm.package\nname: a\n');
  writeFileSync(
    join(repo, 'catalogs', 'v4.13', 'b', 'catalog.json'),
    '{"schema":"olm.package","name":"b"}\n',
  );
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'catalogs');

  it('extracts each version from a git directory, and leaves out versions it lacks', () => {
    const scratch = join(root, 'scratch');
    const found = realCatalogs(join(repo, '.git'), ['v4.12', 'v4.13', 'v4.99'], scratch);
    expect(found.map((c) => [c.version, c.files, c.missing])).toEqual([
      ['v4.12', 1, []],
      ['v4.13', 1, []],
    ]);
    expect(readFileSync(join(scratch, 'v4.12', 'a', 'catalog.yaml'), 'utf8')).toBe(
      'schema: olm.package\nname: a\n',
    );
  });

  it('uses a directory holding catalogs/<version> in place', () => {
    const [found] = realCatalogs(repo, ['v4.13'], join(root, 'unused'));
    expect(found?.dir).toBe(join(repo, 'catalogs', 'v4.13'));
    expect(found?.bytes).toBe(36);
  });

  it('says what it needs when the source holds none of them', () => {
    expect(() => realCatalogs(root, ['v4.12'], join(root, 'unused'))).toThrow(/holds none of v4.12/);
    expect(() => realCatalogs(join(root, 'absent'), ['v4.12'], root)).toThrow(/does not exist/);
  });
});
