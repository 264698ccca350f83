import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { toCatalogBundle } from '../bundle/catalog-bundle.js';
import { renderBundle } from '../bundle/render.js';
import {
  type ParsedProperties,
  PROPERTY_BUNDLE_OBJECT,
  PROPERTY_CSV_METADATA,
  PROPERTY_GVK,
  PROPERTY_GVK_REQUIRED,
  PROPERTY_PACKAGE,
  PROPERTY_PACKAGE_REQUIRED,
  readBundleObjects,
} from '../catalog/declcfg/properties.js';
import type { BundleBlob, PackageBlob } from '../catalog/declcfg/types.js';
import { type CatalogModel, declaredChannels, type ModelChannel } from '../catalog/model/catalog-model.js';
import { channelHead } from '../catalog/model/replaces-chain.js';
import { goQuote } from '../go-compat/go-format.js';
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

/**
 * The catalog as the registry API sees it: packages → channels (with heads) → one API bundle per entry. It is
 * a serving view of the catalog's model ({@link buildRegistryModel}), and what the serve cache keeps.
 */
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

/** A bundle's manifests: the CSV JSON (the first CSV among the objects) and every object. */
interface BundleContent {
  readonly csvJson: string;
  readonly objects: readonly string[];
}

/** The content of `<bundlesDir>/<package>/<version>/`, rendered as `opm render <dir>` would inline it. */
function contentFromDirectory(bundlesDir: string, pkg: string, version: string): BundleContent | undefined {
  const dir = join(bundlesDir, pkg, version);
  if (!existsSync(dir)) return undefined;
  return readBundleObjects(toCatalogBundle(renderBundle(dir)));
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
 * Builds what the registry API serves from the model of a catalog that passed validation: every package with
 * its default channel and deprecation, every channel with its head, and one API bundle per (channel, bundle) —
 * as opm's serve cache does (`ConvertModelBundleToAPIBundle`). With `inlineBundles`, every bundle carries its
 * manifests and an empty `bundlePath`. Bundles use the model's parsed properties and the objects decoded when
 * the catalog was loaded.
 *
 * @throws RegistryError for a bundle opm could not convert either (two `olm.csv.metadata` properties), or,
 *   with `inlineBundles`, a bundle that has neither inline objects nor a bundle directory.
 */
export function buildRegistryModel(
  model: CatalogModel,
  options: BuildRegistryModelOptions = {},
): RegistryModel {
  const packages = new Map<string, RegistryPackage>();
  for (const pkg of model.packages.values()) {
    const prepare = bundlePreparer(pkg.blob, options);
    const channels = new Map<string, RegistryChannel>();
    for (const channel of declaredChannels(pkg)) {
      channels.set(channel.name, registryChannel(pkg.blob, channel, prepare));
    }
    packages.set(pkg.name, {
      name: pkg.name,
      defaultChannel: pkg.blob.defaultChannel,
      channels,
      ...(pkg.deprecation !== undefined ? { deprecation: { message: pkg.deprecation } } : {}),
    });
  }
  return { packages };
}

type Converted = ReturnType<typeof convertBundle>;

/** A bundle ready to serve: the APIs it provides now, its conversion to an API bundle on first use. */
interface PreparedBundle {
  readonly providedApis: ApiGroupVersionKind[];
  readonly convert: () => Converted;
}

/** A bundle blob of the model with what the model knows of it. */
interface ModelBlob {
  readonly blob: BundleBlob;
  readonly properties: ParsedProperties;
  readonly deprecation: string | undefined;
}

/**
 * Prepares each bundle of a package once, however many channels list it. Start-up checks only what opm's
 * cache build would refuse; the conversion itself (synthesizing CSVs, reading bundle directories) happens on
 * first use, once per bundle, so a large catalog is served at once.
 */
function bundlePreparer(
  pkg: PackageBlob,
  options: BuildRegistryModelOptions,
): (bundle: ModelBlob) => PreparedBundle {
  const prepared = new Map<string, PreparedBundle>();
  return ({ blob, properties, deprecation }) => {
    const known = prepared.get(blob.name);
    if (known !== undefined) return known;
    const csvMetadatas = properties.csvMetadatas.length;
    if (csvMetadatas > 1) {
      throw new RegistryError(
        'REGISTRY_BUNDLE_INVALID',
        `package ${goQuote(pkg.name)}, bundle ${goQuote(blob.name)}: parse properties: expected at most 1 property of type "olm.csv.metadata", found ${csvMetadatas}`,
      );
    }
    const fromDir = options.inlineBundles ? inlineContent(pkg, blob, properties, options) : undefined;
    const served = options.inlineBundles ? { ...blob, image: '' } : blob;
    let converted: Converted | undefined;
    const p: PreparedBundle = {
      providedApis: properties.gvks.map(gvk),
      convert: () => {
        converted ??= convertBundle(pkg, served, properties, fromDir ?? readBundleObjects(blob), deprecation);
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
  properties: ParsedProperties,
  options: BuildRegistryModelOptions,
): BundleContent | undefined {
  if (properties.bundleObjects.length > 0) return undefined;
  const version = properties.packages[0]?.version ?? '';
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
  channel: ModelChannel,
  prepare: (bundle: ModelBlob) => PreparedBundle,
): RegistryChannel {
  const head = channelHead([...channel.bundles.values()]);
  if ('error' in head) {
    throw new RegistryError(
      'REGISTRY_CATALOG_INVALID',
      `package ${goQuote(pkg.name)}, channel ${goQuote(channel.name)}: ${head.error}`,
    );
  }
  const entries = new Map<string, RegistryEntry>();
  for (const entry of channel.bundles.values()) {
    const { blob, properties } = entry;
    if (blob === undefined || properties === undefined) {
      throw new RegistryError(
        'REGISTRY_CATALOG_INVALID',
        `package ${goQuote(pkg.name)}, channel ${goQuote(channel.name)}: no olm.bundle blob for entry ${goQuote(entry.name)}`,
      );
    }
    const { providedApis, convert } = prepare({ blob, properties, deprecation: entry.deprecation });
    let bundle: ApiBundle | undefined;
    entries.set(entry.name, {
      packageName: pkg.name,
      channelName: channel.name,
      name: entry.name,
      replaces: entry.replaces,
      skips: entry.skips,
      providedApis,
      get bundle(): ApiBundle {
        bundle ??= {
          ...convert(),
          channelName: channel.name,
          skipRange: entry.skipRange,
          replaces: entry.replaces,
          skips: [...entry.skips],
        };
        return bundle;
      },
    });
  }
  return {
    name: channel.name,
    head: head.head,
    entries,
    ...(channel.deprecation !== undefined ? { deprecation: { message: channel.deprecation } } : {}),
  };
}
