import {
  type BundleBlob,
  type Catalog,
  type ChannelBlob,
  type ChannelEntry,
  emptyCatalog,
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_PACKAGE,
} from './types.js';

/** Options of {@link syntheticCatalog}. */
export interface SyntheticCatalogOptions {
  /** Number of packages. Default 50. */
  readonly packages?: number;
  /** Bundles per package. Default 100. */
  readonly bundlesPerPackage?: number;
  /** Patch releases per minor version. Default 10. */
  readonly patchesPerMinor?: number;
  /** Minor versions per major version. Default 10. */
  readonly minorsPerMajor?: number;
}

interface SyntheticVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly text: string;
}

/** `count` versions in semver order: `patches` patches per minor, `minors` minors per major, from 1.0.0. */
function syntheticVersions(count: number, patches: number, minors: number): SyntheticVersion[] {
  return Array.from({ length: count }, (_, i) => {
    const patch = i % patches;
    const minor = Math.floor(i / patches) % minors;
    const major = Math.floor(i / (patches * minors)) + 1;
    return { major, minor, patch, text: `${major}.${minor}.${patch}` };
  });
}

/** `stable`: every bundle; minor heads replace the previous head and skip their minor's lower patches. */
function stableChannel(
  pkg: string,
  versions: readonly SyntheticVersion[],
  name: (i: number) => string,
): ChannelBlob {
  const count = versions.length;
  const sameMinor = (a: SyntheticVersion, b: SyntheticVersion): boolean =>
    a.minor === b.minor && a.major === b.major;
  const isMinorHead = (i: number): boolean => i === count - 1 || !sameMinor(versions[i + 1]!, versions[i]!);
  const entries: ChannelEntry[] = [];
  let minorStart = 0;
  let previousMinorHead: string | undefined;
  for (let i = 0; i < count; i++) {
    const v = versions[i]!;
    if (i > 0 && !sameMinor(v, versions[i - 1]!)) minorStart = i;
    const entry: ChannelEntry = { name: name(i) };
    if (isMinorHead(i)) {
      if (previousMinorHead) entry.replaces = previousMinorHead;
      if (i > minorStart) {
        entry.skips = Array.from({ length: i - minorStart }, (_, k) => name(minorStart + k));
        entry.skipRange = `>=${v.major}.${v.minor}.0 <${v.text}`;
      }
      previousMinorHead = name(i);
    } else if (i > minorStart) {
      entry.replaces = name(i - 1);
    } else if (previousMinorHead) {
      entry.replaces = previousMinorHead;
    }
    entries.push(entry);
  }
  return { schema: SCHEMA_CHANNEL, name: 'stable', package: pkg, entries };
}

/** `fast`: the last tenth of the bundles on a plain `replaces` chain, its tail replacing a bundle outside it. */
function fastChannel(pkg: string, count: number, name: (i: number) => string): ChannelBlob {
  const fastCount = Math.max(1, Math.floor(count / 10));
  const entries: ChannelEntry[] = [];
  for (let i = count - fastCount; i < count; i++) {
    entries.push(i > 0 ? { name: name(i), replaces: name(i - 1) } : { name: name(i) });
  }
  return { schema: SCHEMA_CHANNEL, name: 'fast', package: pkg, entries };
}

function syntheticBundle(pkg: string, name: string, version: string): BundleBlob {
  return {
    schema: SCHEMA_BUNDLE,
    name,
    package: pkg,
    image: `quay.io/opkit-synthetic/${pkg}-bundle:v${version}`,
    properties: [
      { type: 'olm.package', value: { packageName: pkg, version } },
      { type: 'olm.gvk', value: { group: `${pkg}.example.com`, kind: 'Widget', version: 'v1' } },
      {
        type: 'olm.csv.metadata',
        value: {
          annotations: { capabilities: 'Basic Install', createdAt: '2026-01-01T00:00:00Z' },
          description: `Synthetic operator ${pkg} ${version}.`,
          displayName: `Synthetic ${pkg}`,
          installModes: [
            { supported: true, type: 'OwnNamespace' },
            { supported: true, type: 'AllNamespaces' },
          ],
          keywords: ['synthetic', 'benchmark'],
          provider: { name: 'opkit' },
        },
      },
    ],
    relatedImages: [
      { name: 'operator', image: `quay.io/opkit-synthetic/${pkg}:v${version}` },
      { name: '', image: `quay.io/opkit-synthetic/${pkg}-bundle:v${version}` },
    ],
  };
}

/**
 * Generates a valid file-based catalog of the requested size for benchmarks (e.g. `opm validate` against
 * `validateCatalog`). Each package `pkg-NNN` has bundles `pkg-NNN.vX.Y.Z` in semver order and two channels:
 * `stable` with every bundle — the highest patch of each minor `replaces` the previous minor's highest patch,
 * `skips` the lower patches of its minor and has `skipRange: >=X.Y.0 <X.Y.Z`; lower patches `replaces` their
 * predecessor — and `fast` with the last tenth of the bundles on a plain `replaces` chain whose tail replaces a
 * bundle outside the channel. Bundles carry `olm.package`, `olm.gvk` and a small `olm.csv.metadata`.
 * The output is deterministic.
 */
export function syntheticCatalog(options: SyntheticCatalogOptions = {}): Catalog {
  const packages = options.packages ?? 50;
  const perPackage = options.bundlesPerPackage ?? 100;
  const patches = Math.max(1, options.patchesPerMinor ?? 10);
  const minors = Math.max(1, options.minorsPerMajor ?? 10);
  const catalog = emptyCatalog();
  for (let p = 0; p < packages; p++) {
    const pkg = `pkg-${String(p).padStart(3, '0')}`;
    catalog.packages.push({
      schema: SCHEMA_PACKAGE,
      name: pkg,
      defaultChannel: 'stable',
      description: `Synthetic operator ${pkg} for benchmarks.`,
    });
    const versions = syntheticVersions(perPackage, patches, minors);
    const name = (i: number): string => `${pkg}.v${versions[i]!.text}`;
    catalog.channels.push(stableChannel(pkg, versions, name), fastChannel(pkg, perPackage, name));
    catalog.bundles.push(...versions.map((v, i) => syntheticBundle(pkg, name(i), v.text)));
  }
  return catalog;
}
