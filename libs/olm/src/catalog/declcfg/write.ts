import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, posix } from 'node:path';
import {
  OutputDirectoryError,
  type OutputGuard,
  type OutputKind,
  writeOutputDirectory,
} from '@opkit/oci/output-directory';
import { byteOrder, goQuote } from '../../go-compat/go-format.js';
import { GO_STRUCT, type GoStructObject, goJsonMarshal } from '../../go-compat/go-json.js';
import { goSortSlice } from '../../go-compat/index.js';
import { encodeGoYaml } from '../../go-compat/yaml-emit.js';
import { CatalogWriteError } from './errors.js';
import { PROPERTY_BUNDLE_OBJECT, PROPERTY_CSV_METADATA } from './properties.js';
import type {
  BundleBlob,
  BundleRelatedImage,
  Catalog,
  ChannelBlob,
  DeprecationBlob,
  OtherBlob,
  PackageBlob,
  Property,
} from './types.js';

/** Output formats opm writes: concatenated JSON objects, or YAML documents each preceded by `---`. */
export type CatalogFormat = 'json' | 'yaml';

/** Options of {@link writeCatalog} and {@link catalogFiles}. */
export interface WriteCatalogOptions {
  /** Default `json` (opm migrate's default). */
  readonly format?: CatalogFormat;
  /**
   * Apply what `opm render` does before writing: `olm.bundle.object` and `olm.csv.metadata` properties moved to
   * the end of each bundle's properties, related images sorted by image. Default `true`, which makes the output
   * identical to `opm migrate <dir> <out>` for a loaded catalog.
   */
  readonly normalize?: boolean;
}

// Documents are built as Go structs in opm's field order (declcfg's types); `undefined` fields are omitted.
const props = (ps: readonly Property[] | undefined): readonly object[] | undefined =>
  ps && ps.length > 0 ? (ps.every(hasTypeThenValue) ? ps : ps.map(propertyStruct)) : undefined;

const propertyStruct = (p: Property): GoStructObject => ({
  type: p.type,
  value: p.value ?? null,
  [GO_STRUCT]: true,
});

/**
 * A property that already encodes as `property.Property` does without a copy: exactly `type` then a `value`,
 * names in Go's order for a map as well as a struct's. Loaded catalogs hold thousands of them.
 */
function hasTypeThenValue(p: Property): boolean {
  if (p.value === undefined) return false;
  let i = 0;
  for (const key in p) {
    if (key !== (i === 0 ? 'type' : 'value') || ++i > 2) return false;
  }
  return i === 2;
}

function packageStruct(p: PackageBlob): GoStructObject {
  return {
    schema: p.schema,
    name: p.name,
    defaultChannel: p.defaultChannel,
    icon: p.icon
      ? { base64data: p.icon.base64data, mediatype: p.icon.mediatype, [GO_STRUCT]: true }
      : undefined,
    description: p.description || undefined,
    properties: props(p.properties),
    [GO_STRUCT]: true,
  };
}

function channelStruct(c: ChannelBlob): GoStructObject {
  return {
    schema: c.schema,
    name: c.name,
    package: c.package,
    entries: c.entries.map((e) => ({
      name: e.name,
      replaces: e.replaces || undefined,
      skips: e.skips && e.skips.length > 0 ? e.skips : undefined,
      skipRange: e.skipRange || undefined,
      [GO_STRUCT]: true,
    })),
    properties: props(c.properties),
    [GO_STRUCT]: true,
  };
}

function bundleStruct(b: BundleBlob): GoStructObject {
  const related = b.relatedImages && b.relatedImages.length > 0 ? b.relatedImages : undefined;
  return {
    schema: b.schema,
    name: b.name || undefined,
    package: b.package || undefined,
    image: b.image,
    properties: props(b.properties),
    relatedImages: related?.map((r) => ({ name: r.name, image: r.image, [GO_STRUCT]: true })),
    [GO_STRUCT]: true,
  };
}

function deprecationStruct(d: DeprecationBlob): GoStructObject {
  return {
    schema: d.schema,
    package: d.package,
    entries: d.entries.map((e) => ({
      reference: { schema: e.reference.schema, name: e.reference.name || undefined, [GO_STRUCT]: true },
      message: e.message,
      [GO_STRUCT]: true,
    })),
    [GO_STRUCT]: true,
  };
}

/**
 * Whether `items` are in Go's order of `key`; `strictly` refuses equal keys too, which an unstable sort
 * (sort.Slice) may reorder.
 */
function inOrderBy<T>(items: readonly T[], key: (t: T) => string, strictly: boolean): boolean {
  for (let i = 1; i < items.length; i++) {
    const order = byteOrder(key(items[i - 1]!), key(items[i]!));
    if (order > 0 || (strictly && order === 0)) return false;
  }
  return true;
}

function stableSortBy<T>(items: readonly T[], key: (t: T) => string): readonly T[] {
  if (inOrderBy(items, key, false)) return items;
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => byteOrder(key(a.item), key(b.item)) || a.i - b.i)
    .map(({ item }) => item);
}

/**
 * What `opm render` does to every bundle before writing (see {@link WriteCatalogOptions.normalize}); bundles it
 * would not change are kept, not copied.
 */
export function normalizeForRender(catalog: Catalog): Catalog {
  return { ...catalog, bundles: catalog.bundles.map(normalizeBundle) };
}

const isObjectProperty = (p: Property): boolean =>
  p.type === PROPERTY_BUNDLE_OBJECT || p.type === PROPERTY_CSV_METADATA;

/** A bundle as `opm render` writes it; the bundle itself when that changes nothing, as for most. */
function normalizeBundle(b: BundleBlob): BundleBlob {
  const propertiesInOrder = objectPropertiesLast(b.properties);
  const imagesInOrder = !b.relatedImages || inOrderBy(b.relatedImages, imageOf, true);
  if (propertiesInOrder && imagesInOrder) return b;
  const out: BundleBlob = { ...b };
  if (!propertiesInOrder) {
    out.properties = [
      ...b.properties.filter((p) => !isObjectProperty(p)),
      ...b.properties.filter(isObjectProperty),
    ];
  }
  // sort.Slice, as opm: not stable, so entries sharing an image come out in Go's order.
  if (!imagesInOrder && b.relatedImages) {
    out.relatedImages = goSortSlice([...b.relatedImages], (x, y) => byteOrder(x.image, y.image) < 0);
  }
  return out;
}

function objectPropertiesLast(properties: readonly Property[]): boolean {
  let seenObject = false;
  for (const p of properties) {
    if (isObjectProperty(p)) seenObject = true;
    else if (seenObject) return false;
  }
  return true;
}

const imageOf = (r: BundleRelatedImage): string => r.image;

interface PackageGroup {
  packages: PackageBlob[];
  channels: ChannelBlob[];
  bundles: BundleBlob[];
  others: OtherBlob[];
  deprecations: DeprecationBlob[];
}

/** opm's `configsByPackage`: blobs grouped by package name; blobs with an empty package are dropped, except others. */
function groupByPackage(catalog: Catalog): { groups: Map<string, PackageGroup>; rootOthers: OtherBlob[] } {
  const groups = new Map<string, PackageGroup>();
  const group = (name: string): PackageGroup | undefined => {
    if (name === '') return undefined;
    let g = groups.get(name);
    if (!g) {
      g = { packages: [], channels: [], bundles: [], others: [], deprecations: [] };
      groups.set(name, g);
    }
    return g;
  };
  for (const p of catalog.packages) group(p.name)?.packages.push(p);
  for (const c of catalog.channels) group(c.package)?.channels.push(c);
  for (const b of catalog.bundles) group(b.package)?.bundles.push(b);
  const rootOthers: OtherBlob[] = [];
  for (const o of catalog.others) {
    if (o.package === '') rootOthers.push(o);
    else group(o.package)?.others.push(o);
  }
  for (const d of catalog.deprecations) group(d.package)?.deprecations.push(d);
  return { groups, rootOthers };
}

function encoderFor(format: CatalogFormat): (value: unknown) => string {
  return format === 'json'
    ? (v) => `${goJsonMarshal(v, { escapeHtml: false, indent: '    ' })}\n`
    : (v) => `---\n${encodeGoYaml(v)}`;
}

function groupStructs(g: PackageGroup): unknown[] {
  return [
    ...g.packages.map(packageStruct),
    ...stableSortBy(g.channels, (c) => c.name).map(channelStruct),
    ...stableSortBy(g.bundles, (b) => b.name).map(bundleStruct),
    ...stableSortBy(g.others, (o) => o.schema).map((o) => o.blob),
    ...g.deprecations.map(deprecationStruct),
  ];
}

/**
 * Serializes a whole catalog as one stream exactly like opm's `WriteJSON` / `WriteYAML` (`opm render -o json|yaml`):
 * packages in name order, each with its package blobs, channels and bundles sorted by name, other blobs by
 * schema, then deprecations; blobs without a package last. JSON uses 4-space indentation without HTML escaping,
 * YAML sorted keys with `---` before every document.
 */
export function serializeCatalog(catalog: Catalog, options: WriteCatalogOptions = {}): string {
  let out = '';
  for (const document of serializeCatalogDocuments(catalog, options)) out += document;
  return out;
}

/**
 * {@link serializeCatalog} a document at a time, each encoded when it is asked for: whoever writes them as they
 * come never holds the whole text, which for catalogs with manifests inline is as large as the catalog.
 */
export function* serializeCatalogDocuments(
  catalog: Catalog,
  options: WriteCatalogOptions = {},
): Generator<string> {
  const c = (options.normalize ?? true) ? normalizeForRender(catalog) : catalog;
  const encode = encoderFor(options.format ?? 'json');
  const { groups, rootOthers } = groupByPackage(c);
  for (const name of [...groups.keys()].sort(byteOrder)) {
    for (const s of groupStructs(groups.get(name)!)) yield encode(s);
  }
  for (const o of rootOthers) yield encode(o.blob);
}

function isLocalPath(name: string): boolean {
  if (name === '' || isAbsolute(name)) return false;
  const n = normalize(name);
  return n !== '..' && !n.startsWith('../') && !n.includes('\0');
}

/**
 * The files opm's `WriteFS` (`opm migrate`) produces for a catalog: `<package>/catalog.<ext>` per package and
 * `catalog.<ext>` for blobs without a package. Keys are relative paths, sorted.
 *
 * @throws CatalogWriteError for a package name that is not a local path (`invalid package name "../x": …`).
 */
export function catalogFiles(catalog: Catalog, options: WriteCatalogOptions = {}): Map<string, string> {
  const format = options.format ?? 'json';
  const c = (options.normalize ?? true) ? normalizeForRender(catalog) : catalog;
  const encode = encoderFor(format);
  const { groups, rootOthers } = groupByPackage(c);
  const files = new Map<string, string>();
  for (const name of [...groups.keys()].sort(byteOrder)) {
    if (!isLocalPath(name)) {
      throw new CatalogWriteError(
        '',
        `invalid package name ${goQuote(name)}: must be a single local path element`,
      );
    }
    files.set(`${name}/catalog.${format}`, groupStructs(groups.get(name)!).map(encode).join(''));
  }
  if (rootOthers.length > 0) files.set(`catalog.${format}`, rootOthers.map((o) => encode(o.blob)).join(''));
  return files;
}

/** The directory a catalog file goes to: its package's, or the file itself for package-less blobs. */
const ownedEntry = (file: string): string => (file.includes('/') ? posix.dirname(file) : file);

/** A directory `writeCatalog` wrote: package directories holding `catalog.json|yaml`, and root catalog files. */
const CATALOG_OUTPUT: OutputKind = {
  what: 'catalog',
  mark: 'a catalog holds <package>/catalog.json directories only',
  isEarlierOutput: async (dir) => {
    let packages = 0;
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      if (entry.isFile() && /^catalog\.(json|yaml)$/.test(entry.name)) continue;
      if (!entry.isDirectory()) return false;
      const files = await readdir(join(dir, entry.name));
      if (!files.includes('catalog.json') && !files.includes('catalog.yaml')) return false;
      packages++;
    }
    return packages > 0;
  },
};

/**
 * Writes a catalog as a directory with one sub-directory per package, byte-identical to what
 * `opm migrate <catalog> <dir>` writes.
 *
 * `dir` is an output directory (see `@opkit/oci/output-directory`): absent, empty, or an earlier catalog (or
 * any directory with `output.force`), never the current directory nor one holding an input of `output`. Only
 * the directories of the catalog's packages (and the root `catalog.<ext>` when there are package-less blobs)
 * are replaced: other packages' directories stay, so a catalog built from one template adds or updates that
 * package alone. The files are written to a temporary sibling directory first and renamed into place: on
 * failure the previous content stays as it was.
 *
 * @returns the relative paths written, sorted
 * @throws CatalogWriteError; OutputDirectoryError when `dir` may not be written.
 */
export async function writeCatalog(
  dir: string,
  catalog: Catalog,
  options: WriteCatalogOptions & { readonly output?: OutputGuard } = {},
): Promise<string[]> {
  const files = catalogFiles(catalog, options);
  const stage = async (temp: string): Promise<void> => {
    for (const [rel, content] of files) {
      await mkdir(dirname(join(temp, rel)), { recursive: true });
      await writeFile(join(temp, rel), content);
    }
  };
  const owned = [...files.keys()].map((file) => posix.normalize(ownedEntry(file)));
  try {
    await writeOutputDirectory(dir, CATALOG_OUTPUT, { owned, stage }, options.output);
  } catch (err) {
    if (err instanceof OutputDirectoryError) throw err;
    throw new CatalogWriteError(dir, `write catalog ${dir}: ${(err as Error).message}`, { cause: err });
  }
  return [...files.keys()];
}
