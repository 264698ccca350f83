import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { readProjectRelease } from './project-release.js';

const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'opkit-project-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

describe('readProjectRelease', () => {
  it('says when there is no package.json', () => {
    const dir = temp();
    expect(readProjectRelease(dir)).toEqual({ source: join(dir, 'package.json'), found: false });
  });

  it('takes the package from the base CSV of a project without an opkit record', () => {
    const dir = temp();
    writeFileSync(join(dir, 'package.json'), '{"version": "0.3.0"}');
    mkdirSync(join(dir, 'config', 'manifests', 'bases'), { recursive: true });
    writeFileSync(join(dir, 'config', 'manifests', 'bases', 'redis-operator.clusterserviceversion.yaml'), '');
    expect(readProjectRelease(dir)).toEqual({
      source: join(dir, 'package.json'),
      found: true,
      version: '0.3.0',
      package: 'redis-operator',
    });
  });

  it('carries the platforms the opkit record states', () => {
    const dir = temp();
    const opkit = {
      package: 'p',
      channels: ['alpha'],
      image: 'i',
      platforms: ['linux/amd64', 'linux/arm64'],
    };
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ version: '0.1.0', opkit }));
    expect(readProjectRelease(dir).platforms).toEqual([
      { os: 'linux', architecture: 'amd64' },
      { os: 'linux', architecture: 'arm64' },
    ]);
  });

  it('refuses a package.json that is not JSON, naming it', () => {
    const dir = temp();
    writeFileSync(join(dir, 'package.json'), '{');
    expect(() => readProjectRelease(dir)).toThrow(`${join(dir, 'package.json')}:`);
  });
});
