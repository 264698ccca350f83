import { describe, expect, it } from 'vitest';
import { validateCatalog } from '../model/validate.js';
import { singleBundleCatalog, withUpgradeBundle } from './bundle-catalog.js';
import type { BundleBlob } from './types.js';

function bundle(version: string): BundleBlob {
  return {
    schema: 'olm.bundle',
    name: `memcached-operator.v${version}`,
    package: 'memcached-operator',
    image: `registry.example/memcached-operator-bundle:v${version}`,
    properties: [{ type: 'olm.package', value: { packageName: 'memcached-operator', version } }],
  };
}

describe('singleBundleCatalog', () => {
  it('is the package, its channel holding the bundle, and the bundle by image; opm would accept it', () => {
    const catalog = singleBundleCatalog(bundle('0.1.0'), 'alpha');
    expect(catalog.packages).toEqual([
      { schema: 'olm.package', name: 'memcached-operator', defaultChannel: 'alpha' },
    ]);
    expect(catalog.channels).toEqual([
      {
        schema: 'olm.channel',
        name: 'alpha',
        package: 'memcached-operator',
        entries: [{ name: 'memcached-operator.v0.1.0' }],
      },
    ]);
    expect(catalog.bundles.map((b) => b.image)).toEqual([
      'registry.example/memcached-operator-bundle:v0.1.0',
    ]);
    expect(validateCatalog(catalog).filter((r) => r.level === 'error')).toEqual([]);
  });
});

describe('withUpgradeBundle', () => {
  const installed = singleBundleCatalog(bundle('0.1.0'), 'alpha');

  it('adds the bundle to the channel as the replacement of the installed one, leaving the input alone', () => {
    const upgraded = withUpgradeBundle(installed, bundle('0.2.0'), {
      channel: 'alpha',
      replaces: 'memcached-operator.v0.1.0',
    });
    expect(upgraded.channels[0]?.entries).toEqual([
      { name: 'memcached-operator.v0.1.0' },
      { name: 'memcached-operator.v0.2.0', replaces: 'memcached-operator.v0.1.0' },
    ]);
    expect(upgraded.bundles.map((b) => b.name)).toEqual([
      'memcached-operator.v0.1.0',
      'memcached-operator.v0.2.0',
    ]);
    expect(installed.channels[0]?.entries).toHaveLength(1);
    expect(validateCatalog(upgraded).filter((r) => r.level === 'error')).toEqual([]);
  });

  it('refuses a bundle already there, another package, a missing replaced bundle or channel', () => {
    const options = { channel: 'alpha', replaces: 'memcached-operator.v0.1.0' };
    expect(() => withUpgradeBundle(installed, bundle('0.1.0'), options)).toThrow(
      'the catalog already has bundle memcached-operator.v0.1.0',
    );
    expect(() =>
      withUpgradeBundle(installed, { ...bundle('0.2.0'), package: 'redis-operator' }, options),
    ).toThrow('the catalog has no package redis-operator');
    expect(() =>
      withUpgradeBundle(installed, bundle('0.2.0'), { ...options, replaces: 'memcached-operator.v0.0.9' }),
    ).toThrow('the catalog has no bundle memcached-operator.v0.0.9 for memcached-operator.v0.2.0 to replace');
    expect(() => withUpgradeBundle(installed, bundle('0.2.0'), { ...options, channel: 'stable' })).toThrow(
      'the catalog has no channel stable of memcached-operator',
    );
  });
});
