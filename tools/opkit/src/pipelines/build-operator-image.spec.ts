import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { operatorImageIdentity, publicUrl } from './build-operator-image.js';

describe('publicUrl', () => {
  it('turns git remotes into https URLs without credentials', () => {
    expect(publicUrl('git@github.com:acme/operators.git')).toBe('https://github.com/acme/operators');
    expect(publicUrl('https://user:token@gitlab.example/acme/ops.git')).toBe(
      'https://gitlab.example/acme/ops',
    );
    expect(publicUrl('ssh://git@github.com:22/acme/operators.git')).toBe('https://github.com/acme/operators');
    expect(publicUrl('http://git.internal/acme/ops/')).toBe('http://git.internal/acme/ops');
  });

  it('gives nothing for local paths and shorthands', () => {
    expect(publicUrl('/srv/git/ops.git')).toBeUndefined();
    expect(publicUrl('file:///srv/git/ops.git')).toBeUndefined();
    expect(publicUrl('github:acme/operators')).toBeUndefined();
  });
});

describe('operatorImageIdentity', () => {
  const project = (pkg: object): string => {
    const dir = mkdtempSync(join(tmpdir(), 'opkit-identity-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg));
    return dir;
  };
  const opkit = { package: 'memcached-operator', channels: ['alpha'], image: 'registry.example/memcached' };

  it('reads the checked opkit record, as every other command does', async () => {
    expect(await operatorImageIdentity(project({ version: '0.2.0', opkit }))).toEqual({
      name: 'memcached-operator',
      version: '0.2.0',
    });
  });

  it('refuses a malformed record, naming the file and field, rather than falling back', async () => {
    const dir = project({ version: '0.2.0', opkit: { ...opkit, package: '../../escape' } });
    await expect(operatorImageIdentity(dir)).rejects.toThrow(`${join(dir, 'package.json')}: opkit.package`);
    await expect(operatorImageIdentity(project({ opkit }))).rejects.toThrow(': version: expected');
  });

  it('names a project without a record by its directory', async () => {
    const dir = project({ version: '1.0.0' });
    expect(await operatorImageIdentity(dir)).toEqual({ name: basename(dir), version: '1.0.0' });
  });
});
