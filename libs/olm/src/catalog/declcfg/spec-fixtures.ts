import type { BundleBlob, Catalog, ChannelBlob, ChannelEntry, PackageBlob } from './types.js';

/** Test helpers: small catalogs built in memory (used by the unit tests of the catalog and graph modules). */

/** An `olm.package` blob. */
export function pkgBlob(name: string, defaultChannel = 'stable'): PackageBlob {
  return { schema: 'olm.package', name, defaultChannel };
}

/** An `olm.channel` blob. */
export function channelBlob(pkg: string, name: string, entries: ChannelEntry[]): ChannelBlob {
  return { schema: 'olm.channel', package: pkg, name, entries };
}

/** An `olm.bundle` blob with an image and an `olm.package` property. */
export function bundleBlob(pkg: string, version: string, name = `${pkg}.v${version}`): BundleBlob {
  return {
    schema: 'olm.bundle',
    name,
    package: pkg,
    image: `quay.io/example/${pkg}-bundle:v${version}`,
    properties: [{ type: 'olm.package', value: { packageName: pkg, version } }],
  };
}

/**
 * A one-package catalog whose single channel `stable` has the given entries; every entry name `<pkg>.v<version>`
 * gets a bundle of that version.
 */
export function oneChannel(entries: ChannelEntry[], pkg = 'foo'): Catalog {
  return {
    packages: [pkgBlob(pkg)],
    channels: [channelBlob(pkg, 'stable', entries)],
    bundles: entries.map((e) => bundleBlob(pkg, e.name.slice(pkg.length + 2), e.name)),
    deprecations: [],
    others: [],
  };
}
