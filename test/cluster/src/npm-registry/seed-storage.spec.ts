import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockfileError, MissingCacheEntryError, seedStorage } from './seed-storage.js';

let dir: string;
let cacheDir: string;

/** Puts `data` into a cacache-layout npm cache and returns its integrity string. */
function cache(data: string): string {
  const digest = createHash('sha512').update(data).digest();
  const hex = digest.toString('hex');
  const folder = join(cacheDir, '_cacache', 'content-v2', 'sha512', hex.slice(0, 2), hex.slice(2, 4));
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, hex.slice(4)), data);
  return `sha512-${digest.toString('base64')}`;
}

function writeLock(packages: Record<string, unknown>): string {
  const lockfile = join(dir, 'package-lock.json');
  writeFileSync(
    lockfile,
    JSON.stringify({ lockfileVersion: 3, packages: { '': { name: 'w' }, ...packages } }),
  );
  return lockfile;
}

function packument(name: string): {
  'dist-tags': Record<string, string>;
  versions: Record<string, { dist: { tarball: string; integrity?: string }; os?: string[] }>;
} {
  return JSON.parse(readFileSync(join(dir, 'storage', name, 'package.json'), 'utf8'));
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'seed-storage-'));
  cacheDir = join(dir, 'npm-cache');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('seedStorage', () => {
  it('serves every locked version of a package with its tarball, the highest as latest', () => {
    const old = cache('left-pad 1.2.0');
    const current = cache('left-pad 1.10.0');
    const lockfile = writeLock({
      'node_modules/left-pad': { version: '1.10.0', integrity: current },
      'node_modules/a/node_modules/left-pad': { version: '1.2.0', integrity: old },
      'node_modules/@opkit/cli': { resolved: 'tools/opkit', link: true },
    });
    const count = seedStorage({ lockfile, workspaceRoot: dir, storage: join(dir, 'storage'), cacheDir });

    expect(count).toBe(2);
    const served = packument('left-pad');
    expect(served['dist-tags'].latest).toBe('1.10.0');
    expect(served.versions['1.2.0']?.dist.integrity).toBe(old);
    expect(readFileSync(join(dir, 'storage', 'left-pad', 'left-pad-1.10.0.tgz'), 'utf8')).toBe(
      'left-pad 1.10.0',
    );
  });

  it("serves another platform's optional package without a tarball, by its os and cpu", () => {
    const other = process.platform === 'win32' ? 'linux' : 'win32';
    const lockfile = writeLock({
      'node_modules/@esbuild/other': { version: '1.0.0', optional: true, os: [other], cpu: ['x64'] },
    });
    seedStorage({ lockfile, workspaceRoot: dir, storage: join(dir, 'storage'), cacheDir });

    const version = packument('@esbuild/other').versions['1.0.0'];
    expect(version?.os).toEqual([other]);
    expect(version?.dist.integrity).toBeUndefined();
  });

  it('names a package the cache lacks and how to fill the cache', () => {
    const lockfile = writeLock({ 'node_modules/left-pad': { version: '1.3.0', integrity: 'sha512-AAAA' } });
    expect(() =>
      seedStorage({ lockfile, workspaceRoot: dir, storage: join(dir, 'storage'), cacheDir }),
    ).toThrow(MissingCacheEntryError);
    expect(() =>
      seedStorage({ lockfile, workspaceRoot: dir, storage: join(dir, 'storage'), cacheDir }),
    ).toThrow(/left-pad@1\.3\.0 .*not in npm's cache.*npm ci/);
  });

  it('refuses a lockfile without packages (lockfileVersion 1), naming the file and the field', () => {
    const lockfile = join(dir, 'package-lock.json');
    writeFileSync(lockfile, JSON.stringify({ lockfileVersion: 1, dependencies: {} }));
    const seed = () => seedStorage({ lockfile, workspaceRoot: dir, storage: join(dir, 'storage'), cacheDir });
    expect(seed).toThrow(LockfileError);
    expect(seed).toThrow(`${lockfile}: no "packages" object`);
  });
});
