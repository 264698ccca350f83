import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readOperatorReleases } from './operator-release.js';

describe('readOperatorReleases', () => {
  let operators: string;
  beforeEach(() => {
    operators = mkdtempSync(join(tmpdir(), 'opkit-releases-'));
  });
  afterEach(() => rmSync(operators, { recursive: true, force: true }));

  const project = (name: string, pkg: unknown) => {
    mkdirSync(join(operators, name));
    writeFileSync(join(operators, name, 'package.json'), JSON.stringify(pkg));
    return join(operators, name, 'package.json');
  };

  it('reads the version and the opkit field, and skips projects without one', () => {
    const manifest = project('memcached', {
      version: '0.3.0',
      opkit: { package: 'memcached-operator', channels: ['alpha'], image: 'example/op', replaces: '0.2.0' },
    });
    project('library', { version: '1.0.0' });
    expect(readOperatorReleases(operators)).toEqual([
      {
        manifest,
        operatorDir: join(operators, 'memcached'),
        version: '0.3.0',
        package: 'memcached-operator',
        channels: ['alpha'],
        image: 'example/op',
        replaces: '0.2.0',
      },
    ]);
  });

  it.each([
    [
      { package: 'p', channels: 'alpha', image: 'i' },
      'opkit.channels: expected a non-empty list of channel names',
    ],
    [
      { package: 'p', channels: [], image: 'i' },
      'opkit.channels: expected a non-empty list of channel names',
    ],
    [{ channels: ['alpha'], image: 'i' }, 'opkit.package: expected the OLM package name'],
    [{ package: 'p', channels: ['alpha'] }, 'opkit.image: expected the operator image repository'],
    [{ package: 'p', channels: ['alpha'], image: 'i', replaces: 2 }, 'opkit.replaces: expected the version'],
    [
      { package: 'p', channels: ['alpha'], image: 'i', platforms: ['linux'] },
      'opkit.platforms: platform "linux" is not os/architecture[/variant] in lower case',
    ],
    [
      { package: 'p', channels: ['alpha'], image: 'i', platforms: ['Linux/AMD64'] },
      'opkit.platforms: platform "Linux/AMD64" is not os/architecture[/variant] in lower case',
    ],
    [
      { package: 'p', channels: ['alpha'], image: 'i', platforms: [] },
      'opkit.platforms: expected a non-empty list of os/architecture',
    ],
    ['p', 'opkit: expected an object'],
  ])('names the file and the field of a malformed opkit field (%j)', (opkit, message) => {
    const manifest = project('bad', { version: '0.1.0', opkit });
    expect(() => readOperatorReleases(operators)).toThrow(`${manifest}: ${message}`);
  });

  it('reads the platforms a release is built for; a variant is allowed and not stated', () => {
    project('redis', {
      version: '0.2.0',
      opkit: {
        package: 'redis-operator',
        channels: ['stable'],
        image: 'i',
        platforms: ['linux/amd64', 'linux/arm64/v8'],
      },
    });
    expect(readOperatorReleases(operators)[0]?.platforms).toEqual([
      { os: 'linux', architecture: 'amd64' },
      { os: 'linux', architecture: 'arm64' },
    ]);
  });

  it('names the version field when it is missing beside an opkit field', () => {
    const manifest = project('bad', { opkit: { package: 'p', channels: ['alpha'], image: 'i' } });
    expect(() => readOperatorReleases(operators)).toThrow(
      expect.objectContaining({
        code: 'OPKIT_ARGUMENT_INVALID',
        message: `${manifest}: version: expected a version such as 0.1.0`,
      }),
    );
  });
});
