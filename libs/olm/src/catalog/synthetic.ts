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
    const versions = Array.from({ length: perPackage }, (_, i) => {
      const patch = i % patches;
      const minor = Math.floor(i / patches) % minors;
      const major = Math.floor(i / (patches * minors)) + 1;
      return { major, minor, patch, text: `${major}.${minor}.${patch}` };
    });
    const name = (i: number): string => `${pkg}.v${versions[i]!.text}`;
    const isMinorHead = (i: number): boolean =>
      i === perPackage - 1 ||
      versions[i + 1]!.minor !== versions[i]!.minor ||
      versions[i + 1]!.major !== versions[i]!.major;

    const stable: ChannelEntry[] = [];
    let minorStart = 0;
    let previousMinorHead: string | undefined;
    for (let i = 0; i < perPackage; i++) {
      const v = versions[i]!;
      if (i > 0 && (v.minor !== versions[i - 1]!.minor || v.major !== versions[i - 1]!.major)) minorStart = i;
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
      stable.push(entry);
    }
    const channels: ChannelBlob[] = [
      { schema: SCHEMA_CHANNEL, name: 'stable', package: pkg, entries: stable },
    ];
    const fastCount = Math.max(1, Math.floor(perPackage / 10));
    const fastStart = perPackage - fastCount;
    const fast: ChannelEntry[] = [];
    for (let i = fastStart; i < perPackage; i++) {
      fast.push(i > 0 ? { name: name(i), replaces: name(i - 1) } : { name: name(i) });
    }
    channels.push({ schema: SCHEMA_CHANNEL, name: 'fast', package: pkg, entries: fast });
    catalog.channels.push(...channels);

    for (let i = 0; i < perPackage; i++) {
      const v = versions[i]!;
      const bundle: BundleBlob = {
        schema: SCHEMA_BUNDLE,
        name: name(i),
        package: pkg,
        image: `quay.io/opkit-synthetic/${pkg}-bundle:v${v.text}`,
        properties: [
          { type: 'olm.package', value: { packageName: pkg, version: v.text } },
          { type: 'olm.gvk', value: { group: `${pkg}.example.com`, kind: 'Widget', version: 'v1' } },
          {
            type: 'olm.csv.metadata',
            value: {
              annotations: { capabilities: 'Basic Install', createdAt: '2026-01-01T00:00:00Z' },
              description: `Synthetic operator ${pkg} ${v.text}.`,
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
          { name: 'operator', image: `quay.io/opkit-synthetic/${pkg}:v${v.text}` },
          { name: '', image: `quay.io/opkit-synthetic/${pkg}-bundle:v${v.text}` },
        ],
      };
      catalog.bundles.push(bundle);
    }
  }
  return catalog;
}
