import { decodeGoBase64, encodeGoBase64 } from '../../go-compat/go-base64.js';
import { byteOrder, goQuote } from '../../go-compat/go-format.js';
import { decodeGo, type GoType } from '../../go-compat/go-json-decode.js';
import { formatVersion, parseVersion, type Version } from '../../semver/version.js';
import { PropertyParseError, parseProperties, readBundleObjects } from '../declcfg/properties.js';
import {
  type BundleBlob,
  type Catalog,
  emptyCatalog,
  type PackageBlob,
  SCHEMA_PACKAGE,
} from '../declcfg/types.js';
import { ARCHETYPES, type Archetype, type ChannelGeneration, generateChannels } from './semver-channels.js';
import {
  invalid,
  lookup,
  type RenderedBundles,
  type RenderTemplateOptions,
  readInput,
  type TemplateInput,
  unknownBundle,
} from './template-input.js';

/** Schema of the semver template. */
export const SCHEMA_SEMVER_TEMPLATE = 'olm.semver';

/** The parsed form of a semver template, with opm's defaults applied. */
export interface SemverTemplate extends ChannelGeneration {
  readonly schema: typeof SCHEMA_SEMVER_TEMPLATE;
  readonly candidate: { readonly bundles: readonly { readonly image: string }[] };
  readonly fast: { readonly bundles: readonly { readonly image: string }[] };
  readonly stable: { readonly bundles: readonly { readonly image: string }[] };
}

const bundleEntries: GoType = {
  kind: 'struct',
  name: 'semver.channelBundles',
  fields: {
    bundles: {
      kind: 'slice',
      name: '[]semver.bundleEntry',
      elem: { kind: 'struct', name: 'semver.bundleEntry', fields: { image: { kind: 'string' } } },
    },
  },
};

const SEMVER_TEMPLATE_TYPE: GoType = {
  kind: 'struct',
  name: 'semver.SemverTemplateData',
  fields: {
    schema: { kind: 'string' },
    generateMajorChannels: { kind: 'bool' },
    generateMinorChannels: { kind: 'bool' },
    defaultChannelTypePreference: { kind: 'string', name: 'semver.StreamType' },
    candidate: bundleEntries,
    fast: bundleEntries,
    stable: bundleEntries,
  },
};

/**
 * Parses a semver template like opm's `readFile`: fields match case-insensitively, unknown fields are rejected
 * (`json: unknown field "avoidSkipPatch"` — opm's semver template has no such option), minor channels are generated
 * when neither kind is requested, and the default-channel preference must match a generated kind.
 *
 * @throws TemplateError `TEMPLATE_INVALID` with opm's message
 */
export function parseSemverTemplate(
  input: TemplateInput,
  options: RenderTemplateOptions = {},
): SemverTemplate {
  const file = options.file ?? '<template>';
  const prefix = 'render: unable to read file: ';
  const doc = readInput(input, file, prefix);
  const { value, error } = decodeGo(doc, SEMVER_TEMPLATE_TYPE, { disallowUnknownFields: true });
  if (error !== undefined)
    throw invalid(file, `${prefix}error unmarshaling JSON: while decoding JSON: ${error}`);
  type Raw = {
    schema?: string;
    generateMajorChannels?: boolean;
    generateMinorChannels?: boolean;
    defaultChannelTypePreference?: string;
    candidate?: { bundles?: { image?: string }[] };
    fast?: { bundles?: { image?: string }[] };
    stable?: { bundles?: { image?: string }[] };
  };
  const raw = (value ?? {}) as Raw;
  if (raw.schema !== SCHEMA_SEMVER_TEMPLATE) {
    throw invalid(
      file,
      `${prefix}readFile: input file has unknown schema, should be ${goQuote(SCHEMA_SEMVER_TEMPLATE)}`,
    );
  }
  const major = raw.generateMajorChannels ?? false;
  const minor = (raw.generateMinorChannels ?? false) || !major;
  let preference = raw.defaultChannelTypePreference ?? '';
  if (preference === '') preference = minor ? 'minor' : 'major';
  else if (preference === 'minor' && !minor) {
    throw invalid(
      file,
      `${prefix}schema attribute mismatch: DefaultChannelTypePreference set to 'minor' doesn't make sense if not generating minor-version channels`,
    );
  } else if (preference === 'major' && !major) {
    throw invalid(
      file,
      `${prefix}schema attribute mismatch: DefaultChannelTypePreference set to 'major' doesn't make sense if not generating major-version channels`,
    );
  } else if (preference !== 'minor' && preference !== 'major') {
    throw invalid(
      file,
      `${prefix}unknown DefaultChannelTypePreference: ${goQuote(preference)}\nValid values are 'major' or 'minor'`,
    );
  }
  const list = (c: Raw['stable']) => ({ bundles: (c?.bundles ?? []).map((b) => ({ image: b.image ?? '' })) });
  return {
    schema: SCHEMA_SEMVER_TEMPLATE,
    generateMajorChannels: major,
    generateMinorChannels: minor,
    defaultChannelTypePreference: preference as 'major' | 'minor',
    candidate: list(raw.candidate),
    fast: list(raw.fast),
    stable: list(raw.stable),
  };
}

/**
 * Renders a semver template (`schema: olm.semver`) exactly like operator-registry v1.73.0: channels
 * `<archetype>-v<X>` and/or `<archetype>-v<X>.<Y>` for the candidate, fast and stable bundle lists; within one
 * archetype, kind and major version the highest patch of each minor `replaces` the highest patch of the previous
 * minor and `skips` every lower version seen so far; no edges cross majors or archetypes; the default channel is
 * the "high-water mark" (most stable archetype, then highest version, then the preferred kind). Package
 * description and icon come from the CSV (`olm.bundle.object`) of the default channel's head, when present.
 *
 * @throws TemplateError `TEMPLATE_UNKNOWN_BUNDLE` naming the file and entry (e.g. `stable.bundles[2]`) when an
 *   image has no rendered bundle, `TEMPLATE_INVALID` with opm's message otherwise.
 */
export function renderSemverTemplate(
  input: TemplateInput,
  bundles: RenderedBundles,
  options: RenderTemplateOptions = {},
): Catalog {
  const file = options.file ?? '<template>';
  const template = parseSemverTemplate(input, options);
  const out = emptyCatalog();
  const rendered = renderedBundlesByImage(template, bundles, file);
  out.bundles = rendered.blobs;
  if (out.bundles.length === 0)
    throw invalid(file, 'render: no bundles specified or no bundles could be rendered');
  const { packageNames, versions } = bundleVersions(template, rendered.byImage, file);
  out.packages = packageNames.map((name) => ({
    schema: SCHEMA_PACKAGE,
    name,
    defaultChannel: '',
    source: { file, index: 0 },
  }));
  const packageName = packageNames[packageNames.length - 1] ?? '';
  const { channels, defaultChannel } = generateChannels(template, versions, packageName, file);
  out.channels = channels.sort((a, b) => byteOrder(a.name, b.name));
  const [pkg] = out.packages;
  if (pkg === undefined) return out; // unreachable: there is at least one bundle
  pkg.defaultChannel = defaultChannel;
  populatePackageMetadata(pkg, out, defaultChannel);
  return out;
}

/** The rendered bundle of every image the template lists, each once, in the template's order. */
function renderedBundlesByImage(
  template: SemverTemplate,
  bundles: RenderedBundles,
  file: string,
): { byImage: Map<string, BundleBlob>; blobs: BundleBlob[] } {
  const byImage = new Map<string, BundleBlob>();
  const blobs: BundleBlob[] = [];
  for (const arch of ARCHETYPES) {
    template[arch].bundles.forEach((b, i) => {
      if (byImage.has(b.image)) return;
      const blob = lookup(bundles, b.image);
      if (blob === undefined) throw unknownBundle(file, `${arch}.bundles[${i}]`, b.image);
      byImage.set(b.image, blob);
      blobs.push({ ...blob, source: { file, index: i } });
    });
  }
  return { byImage, blobs };
}

const POST_PROCESS = 'render: unable to post-process bundle info: ';

/**
 * The version of every bundle of each archetype, keyed by bundle name, and the package they all belong to: the
 * first bundle's. Like opm, a package is started again at each bundle while the package name is still empty, so
 * `packageNames` lists every package started; the last is the one channels belong to.
 */
function bundleVersions(
  template: SemverTemplate,
  byImage: ReadonlyMap<string, BundleBlob>,
  file: string,
): { packageNames: string[]; versions: Map<Archetype, Map<string, Version>> } {
  const packageNames: string[] = [];
  let packageName = '';
  const versions = new Map<Archetype, Map<string, Version>>();
  for (const arch of ARCHETYPES) {
    const entries = new Map<string, Version>();
    template[arch].bundles.forEach((ref, i) => {
      const entry = `${arch}.bundles[${i}]`;
      const blob = byImage.get(ref.image);
      // Every image was rendered above, or rendering stopped.
      if (blob === undefined) throw new Error(`no rendered bundle for ${ref.image}`);
      const bundle = packageAndVersion(blob, file, entry);
      if (packageName === '') {
        packageName = bundle.packageName;
        packageNames.push(packageName);
      } else if (bundle.packageName !== packageName) {
        const message = `${POST_PROCESS}bundle ${goQuote(bundle.packageName)} does not belong to this package: ${goQuote(packageName)}`;
        throw invalid(file, message, entry);
      }
      if (entries.has(blob.name))
        throw invalid(file, `${POST_PROCESS}duplicate bundle name ${goQuote(blob.name)}`, entry);
      entries.set(blob.name, bundle.version);
    });
    assertOrderable(entries.values(), file);
    versions.set(arch, entries);
  }
  return { packageNames, versions };
}

function packageAndVersion(
  blob: BundleBlob,
  file: string,
  entry: string,
): { packageName: string; version: Version } {
  let props: ReturnType<typeof parseProperties>;
  try {
    props = parseProperties(blob.properties);
  } catch (err) {
    if (!(err instanceof PropertyParseError)) throw err;
    throw invalid(
      file,
      `${POST_PROCESS}parse properties for bundle ${goQuote(blob.name)}: ${err.message}`,
      entry,
    );
  }
  const [packageProperty] = props.packages;
  if (props.packages.length !== 1 || packageProperty === undefined) {
    const message = `${POST_PROCESS}bundle ${goQuote(blob.name)} has multiple "olm.package" properties, expected exactly 1`;
    throw invalid(file, message, entry);
  }
  try {
    return { packageName: packageProperty.packageName, version: parseVersion(packageProperty.version) };
  } catch (err) {
    const message = `${POST_PROCESS}bundle ${goQuote(blob.name)} has invalid version ${goQuote(packageProperty.version)}: ${(err as Error).message}`;
    throw invalid(file, message, entry);
  }
}

/** Versions that differ only by build metadata have no order, so opm rejects them. */
function assertOrderable(versions: Iterable<Version>, file: string): void {
  const seen = new Set<string>();
  const errs: string[] = [];
  for (const v of versions) {
    const stripped = formatVersion({ ...v, build: [] });
    if (seen.has(stripped))
      errs.push(`bundle version ${goQuote(formatVersion(v))} cannot be compared to ${goQuote(stripped)}`);
    seen.add(stripped);
  }
  if (errs.length === 0) return;
  const agg = errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`;
  throw invalid(
    file,
    `${POST_PROCESS}encountered bundle versions which differ only by build metadata, which cannot be ordered: ${agg}`,
  );
}

/** Description and icon from the CSV of the default channel's head, when it carries one. */
function populatePackageMetadata(pkg: PackageBlob, catalog: Catalog, defaultChannel: string): void {
  const channel = catalog.channels.find((c) => c.name === defaultChannel);
  const head = channel?.entries[channel.entries.length - 1]?.name;
  const bundle = head === undefined ? undefined : catalog.bundles.find((b) => b.name === head);
  if (bundle === undefined) return;
  let csv: Record<string, unknown> | undefined;
  try {
    csv = readBundleObjects(bundle).csv;
  } catch {
    return;
  }
  const spec = csv?.spec;
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return;
  const { description, icon } = spec as Record<string, unknown>;
  if (typeof description === 'string' && description !== '') pkg.description = description;
  if (Array.isArray(icon) && icon.length > 0) {
    const first = icon[0] as Record<string, unknown>;
    try {
      const data =
        typeof first.base64data === 'string' ? encodeGoBase64(decodeGoBase64(first.base64data)) : '';
      pkg.icon = { base64data: data, mediatype: typeof first.mediatype === 'string' ? first.mediatype : '' };
    } catch {
      // opm ignores an undecodable icon
    }
  }
}
