import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { formatOlmBundleJson, renderBundle } from '../bundle/render.js';
import { parseCatalogContent } from '../catalog/load.js';
import {
  type GvkProperty,
  type ParsedProperties,
  PROPERTY_BUNDLE_OBJECT,
  PROPERTY_CSV_METADATA,
  PROPERTY_GVK,
  PROPERTY_GVK_REQUIRED,
  PROPERTY_PACKAGE,
  PROPERTY_PACKAGE_REQUIRED,
  parseProperties,
  readBundleObjects,
} from '../catalog/properties.js';
import { channelHead } from '../catalog/replaces-chain.js';
import type { BundleBlob, Catalog, ChannelBlob, PackageBlob } from '../catalog/types.js';
import { goQuote } from '../semver/go-quote.js';
import type { ApiBundle, ApiDeprecation, ApiGroupVersionKind, ApiTypedValue } from './api.js';
import { csvJsonFromMetadata } from './csv-from-metadata.js';
import { RegistryError } from './errors.js';
import { compactJson } from './property-json.js';

/** One channel entry of the served model: its bundle and its incoming edges. */
export interface RegistryEntry {
  readonly packageName: string;
  readonly channelName: string;
  readonly name: string;
  readonly replaces: string;
  readonly skips: readonly string[];
  /** The APIs the bundle provides (its `olm.gvk` properties). */
  readonly providedApis: readonly ApiGroupVersionKind[];
  /** The bundle as the API serves it in this channel (`replaces`/`skips` included); converted on first use. */
  readonly bundle: ApiBundle;
}

export interface RegistryChannel {
  readonly name: string;
  readonly head: string;
  readonly deprecation?: ApiDeprecation;
  /** Entries by bundle name. */
  readonly entries: ReadonlyMap<string, RegistryEntry>;
}

export interface RegistryPackage {
  readonly name: string;
  readonly defaultChannel: string;
  readonly deprecation?: ApiDeprecation;
  readonly channels: ReadonlyMap<string, RegistryChannel>;
}

/** The catalog as the registry API sees it: packages → channels (with heads) → one API bundle per entry. */
export interface RegistryModel {
  readonly packages: ReadonlyMap<string, RegistryPackage>;
}

/** How bundle content is served. */
export interface BuildRegistryModelOptions {
  /**
   * Serve every bundle's manifests inline (`object` and `csvJson` set, `bundlePath` empty) so OLM installs
   * without a bundle-unpack Job. Content comes from the bundle's `olm.bundle.object` properties or else from
   * `<bundlesDir>/<package>/<version>/`.
   * @default false
   */
  readonly inlineBundles?: boolean;
  /** Where bundle directories are looked up for `inlineBundles`; without it, only the catalog's content counts. */
  readonly bundlesDir?: string;
}

interface PackageDeprecations {
  pkg?: string;
  readonly channels: Map<string, string>;
  readonly bundles: Map<string, string>;
}

/** The messages of each package's `olm.deprecations` blob, by what they deprecate. */
function deprecationsOf(catalog: Catalog): Map<string, PackageDeprecations> {
  const out = new Map<string, PackageDeprecations>();
  for (const d of catalog.deprecations) {
    const entry: PackageDeprecations = out.get(d.package) ?? { channels: new Map(), bundles: new Map() };
    out.set(d.package, entry);
    for (const e of d.entries) {
      if (e.reference.schema === 'olm.package') entry.pkg = e.message;
      else if (e.reference.schema === 'olm.channel') entry.channels.set(e.reference.name ?? '', e.message);
      else if (e.reference.schema === 'olm.bundle') entry.bundles.set(e.reference.name ?? '', e.message);
    }
  }
  return out;
}

const gvk = (g: { group: string; version: string; kind: string }): ApiGroupVersionKind => ({
  group: g.group,
  version: g.version,
  kind: g.kind,
  plural: '',
});

/** `olm.gvk.required` → `olm.gvk` and `olm.package.required` → `olm.package` dependencies, in property order. */
function dependenciesOf(bundle: BundleBlob): ApiTypedValue[] {
  const out: ApiTypedValue[] = [];
  for (const p of bundle.properties) {
    if (p.type === PROPERTY_GVK_REQUIRED) out.push({ type: PROPERTY_GVK, value: compactJson(p.value) });
    else if (p.type === PROPERTY_PACKAGE_REQUIRED) {
      const v = (p.value ?? {}) as { packageName?: string; versionRange?: string };
      const value = new Map([
        ['packageName', v.packageName ?? ''],
        ['version', v.versionRange ?? ''],
      ]);
      out.push({ type: PROPERTY_PACKAGE, value: compactJson(value) });
    }
  }
  return out;
}

interface BundleContent {
  readonly csvJson: string;
  readonly objects: readonly string[];
}

/** The version of a bundle's `olm.package` property (validation guarantees exactly one). */
function packageVersion(bundle: BundleBlob): string {
  const p = bundle.properties.find((x) => x.type === PROPERTY_PACKAGE);
  return ((p?.value ?? {}) as { version?: string }).version ?? '';
}

/** The CSV JSON and objects of a bundle as opm loads them (`csvJson` is the first CSV among the objects). */
function contentOf(bundle: BundleBlob): BundleContent {
  const { objects } = readBundleObjects(bundle);
  const csvJson =
    objects.find((o) => {
      try {
        return (JSON.parse(o) as { kind?: unknown }).kind === 'ClusterServiceVersion';
      } catch {
        return false;
      }
    }) ?? '';
  return { csvJson, objects };
}

/** The content of `<bundlesDir>/<package>/<version>/`, rendered as `opm render <dir>` would inline it. */
function contentFromDirectory(bundlesDir: string, pkg: string, version: string): BundleContent | undefined {
  const dir = join(bundlesDir, pkg, version);
  if (!existsSync(dir)) return undefined;
  const blob = parseCatalogContent(formatOlmBundleJson(renderBundle(dir)), dir).bundles[0];
  return blob ? contentOf(blob) : undefined;
}

function convertBundle(
  pkg: PackageBlob,
  bundle: BundleBlob,
  parsed: ParsedProperties,
  content: BundleContent,
  deprecation: string | undefined,
): Omit<ApiBundle, 'channelName' | 'replaces' | 'skips' | 'skipRange'> {
  const where = `package ${goQuote(pkg.name)}, bundle ${goQuote(bundle.name)}`;
  if (parsed.packages.length !== 1) {
    throw new RegistryError(
      'REGISTRY_BUNDLE_INVALID',
      `${where}: parse properties: expected exactly 1 property of type "olm.package", found ${parsed.packages.length}`,
    );
  }
  if (parsed.csvMetadatas.length > 1) {
    throw new RegistryError(
      'REGISTRY_BUNDLE_INVALID',
      `${where}: parse properties: expected at most 1 property of type "olm.csv.metadata", found ${parsed.csvMetadatas.length}`,
    );
  }
  const version = parsed.packages[0]!.version;
  let { csvJson, objects } = content;
  if (csvJson === '' && parsed.csvMetadatas.length === 1) {
    csvJson = csvJsonFromMetadata({
      name: bundle.name,
      version,
      metadata: parsed.csvMetadatas[0]!,
      ...(pkg.description !== undefined ? { packageDescription: pkg.description } : {}),
      ...(pkg.icon !== undefined ? { packageIcon: pkg.icon } : {}),
      ...(bundle.relatedImages !== undefined ? { relatedImages: bundle.relatedImages } : {}),
    });
    if (objects.length === 0) objects = [csvJson];
  }
  return {
    csvName: bundle.name,
    packageName: pkg.name,
    csvJson,
    object: [...objects],
    bundlePath: bundle.image,
    providedApis: parsed.gvks.map(gvk),
    requiredApis: parsed.gvksRequired.map(gvk),
    version,
    dependencies: dependenciesOf(bundle),
    properties: bundle.properties
      .filter((p) => p.type !== PROPERTY_BUNDLE_OBJECT && p.type !== PROPERTY_CSV_METADATA)
      .map((p) => ({ type: p.type, value: compactJson(p.value) })),
    ...(deprecation !== undefined ? { deprecation: { message: deprecation } } : {}),
  };
}

/**
 * Builds what the registry API serves from a catalog that passed validation: every package with its default
 * channel and deprecation, every channel with its head, and one API bundle per (channel, bundle) — as opm's
 * serve cache does (`ConvertModelBundleToAPIBundle`). With `inlineBundles`, every bundle carries its manifests
 * and an empty `bundlePath`.
 *
 * @throws RegistryError for a bundle opm could not convert either (two `olm.csv.metadata` properties), or,
 *   with `inlineBundles`, a bundle that has neither inline objects nor a bundle directory.
 */
export function buildRegistryModel(catalog: Catalog, options: BuildRegistryModelOptions = {}): RegistryModel {
  const deprecations = deprecationsOf(catalog);
  const bundlesByPackage = groupBy(catalog.bundles, (b) => b.package);
  const channelsByPackage = groupBy(catalog.channels, (c) => c.package);
  const packages = new Map<string, RegistryPackage>();
  for (const pkg of catalog.packages) {
    const dep = deprecations.get(pkg.name);
    const bundles = new Map((bundlesByPackage.get(pkg.name) ?? []).map((b) => [b.name, b]));
    const prepare = bundlePreparer(pkg, dep, options);
    const channels = new Map<string, RegistryChannel>();
    for (const ch of channelsByPackage.get(pkg.name) ?? []) {
      channels.set(ch.name, registryChannel(pkg, ch, bundles, prepare, dep?.channels.get(ch.name)));
    }
    packages.set(pkg.name, {
      name: pkg.name,
      defaultChannel: pkg.defaultChannel,
      channels,
      ...(dep?.pkg !== undefined ? { deprecation: { message: dep.pkg } } : {}),
    });
  }
  return { packages };
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const list = groups.get(key(item)) ?? [];
    groups.set(key(item), list);
    list.push(item);
  }
  return groups;
}

type Converted = ReturnType<typeof convertBundle>;

/** A bundle ready to serve: the APIs it provides now, its conversion to an API bundle on first use. */
interface PreparedBundle {
  readonly providedApis: ApiGroupVersionKind[];
  readonly convert: () => Converted;
}

/**
 * Prepares each bundle of a package once, however many channels list it. Start-up checks only what opm's
 * cache build would refuse; the conversion itself (decoding objects, synthesizing CSVs) happens on first use,
 * once per bundle, so a large catalog is served at once.
 */
function bundlePreparer(
  pkg: PackageBlob,
  dep: PackageDeprecations | undefined,
  options: BuildRegistryModelOptions,
): (blob: BundleBlob) => PreparedBundle {
  const prepared = new Map<string, PreparedBundle>();
  return (blob) => {
    const known = prepared.get(blob.name);
    if (known !== undefined) return known;
    const csvMetadatas = blob.properties.filter((x) => x.type === PROPERTY_CSV_METADATA).length;
    if (csvMetadatas > 1) {
      throw new RegistryError(
        'REGISTRY_BUNDLE_INVALID',
        `package ${goQuote(pkg.name)}, bundle ${goQuote(blob.name)}: parse properties: expected at most 1 property of type "olm.csv.metadata", found ${csvMetadatas}`,
      );
    }
    const fromDir = options.inlineBundles ? inlineContent(pkg, blob, options) : undefined;
    const bundle = options.inlineBundles ? { ...blob, image: '' } : blob;
    let converted: Converted | undefined;
    const p: PreparedBundle = {
      providedApis: bundle.properties
        .filter((x) => x.type === PROPERTY_GVK)
        .map((x) => gvk(x.value as GvkProperty)),
      convert: () => {
        converted ??= convertBundle(
          pkg,
          bundle,
          parseProperties(bundle.properties),
          fromDir ?? contentOf(bundle),
          dep?.bundles.get(bundle.name),
        );
        return converted;
      },
    };
    prepared.set(blob.name, p);
    return p;
  };
}

/**
 * With `inlineBundles`, a bundle without `olm.bundle.object` properties is served from its directory under
 * `bundlesDir`; undefined when it has them.
 * @throws RegistryError when it has neither.
 */
function inlineContent(
  pkg: PackageBlob,
  blob: BundleBlob,
  options: BuildRegistryModelOptions,
): BundleContent | undefined {
  if (blob.properties.some((x) => x.type === PROPERTY_BUNDLE_OBJECT)) return undefined;
  const version = packageVersion(blob);
  const fromDir =
    options.bundlesDir !== undefined
      ? contentFromDirectory(options.bundlesDir, pkg.name, version)
      : undefined;
  if (fromDir === undefined) {
    throw new RegistryError(
      'REGISTRY_INLINE_CONTENT_MISSING',
      `package ${goQuote(pkg.name)}, bundle ${goQuote(blob.name)}: no olm.bundle.object properties to serve inline` +
        (options.bundlesDir !== undefined
          ? ` and no bundle directory ${join(options.bundlesDir, pkg.name, version)}`
          : ' and no bundles directory given'),
    );
  }
  return fromDir;
}

/** A channel with its head and one entry per bundle it lists, each bundle converted when first asked for. */
function registryChannel(
  pkg: PackageBlob,
  ch: ChannelBlob,
  bundles: ReadonlyMap<string, BundleBlob>,
  prepare: (blob: BundleBlob) => PreparedBundle,
  deprecation: string | undefined,
): RegistryChannel {
  const head = channelHead(ch.entries);
  if ('error' in head) {
    throw new RegistryError(
      'REGISTRY_CATALOG_INVALID',
      `package ${goQuote(pkg.name)}, channel ${goQuote(ch.name)}: ${head.error}`,
    );
  }
  const entries = new Map<string, RegistryEntry>();
  for (const e of ch.entries) {
    const blob = bundles.get(e.name);
    if (blob === undefined) {
      throw new RegistryError(
        'REGISTRY_CATALOG_INVALID',
        `package ${goQuote(pkg.name)}, channel ${goQuote(ch.name)}: no olm.bundle blob for entry ${goQuote(e.name)}`,
      );
    }
    const { providedApis, convert } = prepare(blob);
    const skips = e.skips ?? [];
    let bundle: ApiBundle | undefined;
    entries.set(e.name, {
      packageName: pkg.name,
      channelName: ch.name,
      name: e.name,
      replaces: e.replaces ?? '',
      skips,
      providedApis,
      get bundle(): ApiBundle {
        bundle ??= {
          ...convert(),
          channelName: ch.name,
          skipRange: e.skipRange ?? '',
          replaces: e.replaces ?? '',
          skips: [...skips],
        };
        return bundle;
      },
    });
  }
  return {
    name: ch.name,
    head: head.head,
    entries,
    ...(deprecation !== undefined ? { deprecation: { message: deprecation } } : {}),
  };
}
