import { goQuote } from '../semver/go-quote.js';
import { compareVersions, formatVersion, parseVersion, type Version } from '../semver/version.js';
import { decodeGoBase64, encodeGoBase64 } from './go-base64.js';
import { byteOrder } from './go-format.js';
import { decodeGo, type GoType } from './go-json-decode.js';
import { PropertyParseError, parseProperties, readBundleObjects } from './properties.js';
import { renderSubstitutesTemplate, SCHEMA_SUBSTITUTES_TEMPLATE } from './substitutes-template.js';
import {
  invalid,
  loadTemplateEntries,
  lookup,
  type RenderedBundles,
  type RenderTemplateOptions,
  readInput,
  type TemplateInput,
  unknownBundle,
} from './template-input.js';
import {
  type BundleBlob,
  type Catalog,
  type ChannelBlob,
  type ChannelEntry,
  emptyCatalog,
  type PackageBlob,
  SCHEMA_CHANNEL,
  SCHEMA_PACKAGE,
} from './types.js';

/** Schema of the basic template. */
export const SCHEMA_BASIC_TEMPLATE = 'olm.template.basic';
/** Schema of the semver template. */
export const SCHEMA_SEMVER_TEMPLATE = 'olm.semver';

export type { RenderedBundles, RenderTemplateOptions, TemplateInput } from './template-input.js';

const BASIC_TEMPLATE_TYPE: GoType = {
  kind: 'struct',
  name: 'basic.BasicTemplateData',
  fields: {
    schema: { kind: 'string' },
    entries: { kind: 'slice', elem: { kind: 'any' }, name: '[]*declcfg.Meta' },
  },
};

/**
 * Renders a basic template (`schema: olm.template.basic`) like `opm alpha render-template basic`: its entries are
 * loaded as FBC, every `olm.bundle` entry — which must only have `schema` and `image` — is replaced by the rendered
 * bundle for that image, and everything else passes through unchanged. No validation is run.
 *
 * @throws TemplateError `TEMPLATE_UNKNOWN_BUNDLE` naming the file and entry when an image has no rendered bundle,
 *   `TEMPLATE_INVALID` with opm's message otherwise.
 */
export function renderBasicTemplate(
  input: TemplateInput,
  bundles: RenderedBundles,
  options: RenderTemplateOptions = {},
): Catalog {
  const file = options.file ?? '<template>';
  const doc = readInput(input, file, 'decoding template schema: ');
  const { value, error } = decodeGo(doc, BASIC_TEMPLATE_TYPE);
  if (error !== undefined) throw invalid(file, `unmarshalling template: ${error}`);
  const data = (value ?? {}) as { schema?: string; entries?: unknown[] };
  if (data.schema !== SCHEMA_BASIC_TEMPLATE) {
    throw invalid(
      file,
      `template has unknown schema (${goQuote(data.schema ?? '')}), should be ${goQuote(SCHEMA_BASIC_TEMPLATE)}`,
    );
  }
  const loaded = loadTemplateEntries(data.entries ?? [], file, {
    decodePrefix: 'unmarshalling template: ',
  });
  const out: Catalog = { ...loaded, bundles: [] };
  for (const b of loaded.bundles) {
    const entry = `entries[${b.source?.index ?? '?'}]`;
    const isTemplate =
      b.image !== '' && b.package === '' && b.properties.length === 0 && !b.relatedImages?.length;
    if (!isTemplate) throw invalid(file, 'unexpected fields present in basic template bundle', entry);
    const rendered = lookup(bundles, b.image);
    if (rendered === undefined) throw unknownBundle(file, entry, b.image);
    out.bundles.push({ ...rendered, source: { file, index: b.source?.index ?? 0 } });
  }
  return out;
}

/** The parsed form of a semver template, with opm's defaults applied. */
export interface SemverTemplate {
  readonly schema: typeof SCHEMA_SEMVER_TEMPLATE;
  readonly generateMajorChannels: boolean;
  readonly generateMinorChannels: boolean;
  readonly defaultChannelTypePreference: 'major' | 'minor';
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

const ARCHETYPES = ['candidate', 'fast', 'stable'] as const;
type Archetype = (typeof ARCHETYPES)[number];
type Kind = '' | 'major' | 'minor';
const KIND_PRIORITY: Record<Kind, number> = { '': 0, major: 1, minor: 2 };

interface Tuple {
  readonly arch: Archetype;
  readonly kind: 'major' | 'minor';
  readonly parent: string;
  readonly name: string;
  readonly version: Version;
  readonly index: number;
}

interface HighWater {
  readonly arch: Archetype;
  readonly kind: Kind;
  readonly version: Version;
  readonly name: string;
}

function highWaterGt(h: HighWater, other: HighWater, pref: Kind): boolean {
  const a = ARCHETYPES.indexOf(h.arch);
  const b = ARCHETYPES.indexOf(other.arch);
  if (a !== b) return a > b;
  const c = compareVersions(h.version, other.version);
  if (c !== 0) return c > 0;
  if (h.kind !== other.kind) {
    if (h.kind === pref) return true;
    if (other.kind === pref) return false;
    return KIND_PRIORITY[h.kind] > KIND_PRIORITY[other.kind];
  }
  return false;
}

const stripBuild = (v: Version): string => formatVersion({ ...v, build: [] });

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
  const sv = parseSemverTemplate(input, options);
  const out = emptyCatalog();
  const rendered = new Map<string, BundleBlob>();
  for (const arch of ARCHETYPES) {
    sv[arch].bundles.forEach((b, i) => {
      if (rendered.has(b.image)) return;
      const blob = lookup(bundles, b.image);
      if (blob === undefined) throw unknownBundle(file, `${arch}.bundles[${i}]`, b.image);
      rendered.set(b.image, blob);
      out.bundles.push({ ...blob, source: { file, index: i } });
    });
  }
  if (out.bundles.length === 0)
    throw invalid(file, 'render: no bundles specified or no bundles could be rendered');

  const post = 'render: unable to post-process bundle info: ';
  let pkg = '';
  const versions = new Map<Archetype, Map<string, Version>>();
  for (const arch of ARCHETYPES) {
    const entries = new Map<string, Version>();
    sv[arch].bundles.forEach((ref, i) => {
      const entry = `${arch}.bundles[${i}]`;
      const b = rendered.get(ref.image)!;
      let props: ReturnType<typeof parseProperties>;
      try {
        props = parseProperties(b.properties);
      } catch (err) {
        if (!(err instanceof PropertyParseError)) throw err;
        throw invalid(file, `${post}parse properties for bundle ${goQuote(b.name)}: ${err.message}`, entry);
      }
      if (props.packages.length !== 1) {
        throw invalid(
          file,
          `${post}bundle ${goQuote(b.name)} has multiple "olm.package" properties, expected exactly 1`,
          entry,
        );
      }
      const pp = props.packages[0]!;
      let v: Version;
      try {
        v = parseVersion(pp.version);
      } catch (err) {
        throw invalid(
          file,
          `${post}bundle ${goQuote(b.name)} has invalid version ${goQuote(pp.version)}: ${(err as Error).message}`,
          entry,
        );
      }
      if (pkg !== '') {
        if (pp.packageName !== pkg) {
          throw invalid(
            file,
            `${post}bundle ${goQuote(pp.packageName)} does not belong to this package: ${goQuote(pkg)}`,
            entry,
          );
        }
      } else {
        pkg = pp.packageName;
        out.packages.push({
          schema: SCHEMA_PACKAGE,
          name: pkg,
          defaultChannel: '',
          source: { file, index: 0 },
        });
      }
      if (entries.has(b.name)) throw invalid(file, `${post}duplicate bundle name ${goQuote(b.name)}`, entry);
      entries.set(b.name, v);
    });
    const seen = new Set<string>();
    const errs: string[] = [];
    for (const v of entries.values()) {
      const stripped = stripBuild(v);
      if (seen.has(stripped))
        errs.push(`bundle version ${goQuote(formatVersion(v))} cannot be compared to ${goQuote(stripped)}`);
      seen.add(stripped);
    }
    if (errs.length > 0) {
      const agg = errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`;
      throw invalid(
        file,
        `${post}encountered bundle versions which differ only by build metadata, which cannot be ordered: ${agg}`,
      );
    }
    versions.set(arch, entries);
  }

  // generateChannels
  let hwc: HighWater = { arch: 'candidate', kind: '', version: parseVersion('0.0.0'), name: '' };
  const channels = new Map<string, ChannelBlob>();
  const tuples: Tuple[] = [];
  for (const arch of ARCHETYPES) {
    const entries = versions.get(arch)!;
    const names = [...entries.keys()].sort((a, b) => compareVersions(entries.get(a)!, entries.get(b)!));
    for (const name of names) {
      const v = entries.get(name)!;
      const kinds: ['major' | 'minor', string][] = [];
      if (sv.generateMajorChannels) kinds.push(['major', `${arch}-v${v.major}`]);
      if (sv.generateMinorChannels) kinds.push(['minor', `${arch}-v${v.major}.${v.minor}`]);
      for (const [kind, channelName] of kinds) {
        let ch = channels.get(channelName);
        if (ch === undefined) {
          ch = {
            schema: SCHEMA_CHANNEL,
            name: channelName,
            package: pkg,
            entries: [],
            source: { file, index: 0 },
          };
          channels.set(channelName, ch);
          const candidate: HighWater = { arch, kind, version: v, name: channelName };
          if (highWaterGt(candidate, hwc, sv.defaultChannelTypePreference)) hwc = candidate;
        }
        ch.entries.push({ name });
        tuples.push({ arch, kind, parent: channelName, name, version: v, index: ch.entries.length - 1 });
      }
    }
  }
  linkChannels(channels, tuples);
  out.channels = [...channels.values()].sort((a, b) => byteOrder(a.name, b.name));
  const pkgBlob = out.packages[0]!;
  pkgBlob.defaultChannel = hwc.name;
  populatePackageMetadata(pkgBlob, out, hwc.name);
  return out;
}

function linkChannels(channels: Map<string, ChannelBlob>, input: Tuple[]): void {
  const entries = input
    .map((t, i) => ({ t, i }))
    .sort(
      (a, b) =>
        ARCHETYPES.indexOf(a.t.arch) - ARCHETYPES.indexOf(b.t.arch) ||
        KIND_PRIORITY[a.t.kind] - KIND_PRIORITY[b.t.kind] ||
        compareVersions(a.t.version, b.t.version) ||
        a.i - b.i,
    )
    .map(({ t }) => t);
  const setEdges = (t: Tuple, replaces: string, skips: Set<string>): void => {
    const entry: ChannelEntry = channels.get(t.parent)!.entries[t.index]!;
    if (replaces) entry.replaces = replaces;
    else delete entry.replaces;
    const list = [...skips].filter((s) => s !== replaces).sort(byteOrder);
    if (list.length > 0) entry.skips = list;
  };
  let prevZMax = '';
  let curSkips = new Set<string>();
  for (let i = 1; i < entries.length; i++) {
    const prev = entries[i - 1]!;
    const cur = entries[i]!;
    const archChange = cur.arch !== prev.arch;
    const kindChange = cur.kind !== prev.kind;
    const xChange = cur.version.major !== prev.version.major;
    const yChange = cur.version.major !== prev.version.major || cur.version.minor !== prev.version.minor;
    if (archChange || kindChange || xChange || yChange) setEdges(prev, prevZMax, curSkips);
    if (archChange || kindChange || xChange) {
      curSkips = new Set();
      prevZMax = '';
    } else {
      if (yChange) prevZMax = prev.name;
      curSkips.add(prev.name);
    }
  }
  if (entries.length > 1) {
    const last = entries[entries.length - 1]!;
    const penultimate = entries[entries.length - 2]!;
    if (
      last.arch === penultimate.arch &&
      last.kind === penultimate.kind &&
      last.version.major === penultimate.version.major
    ) {
      setEdges(last, prevZMax, curSkips);
    }
  }
}

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

/** The anonymous struct `detectSchema` of opm decodes a template's first document into. */
const TEMPLATE_SCHEMA_TYPE: GoType = { kind: 'struct', name: '', fields: { schema: { kind: 'string' } } };

/**
 * Renders a template of any of the three kinds (basic, semver, substitutes), chosen by the first document's `schema` like `opm alpha render-template`
 * without an explicit type.
 *
 * @throws TemplateError (`template input missing required 'schema' field`, unknown schema, or the renderer's errors)
 */
export function renderTemplate(
  input: TemplateInput,
  bundles: RenderedBundles,
  options: RenderTemplateOptions = {},
): Catalog {
  const file = options.file ?? '<template>';
  const doc = readInput(input, file, 'decoding template input: ');
  // opm reads the schema into a Go struct: `Schema:` names it too, and a non-string is a type error.
  const { value, error } = decodeGo(doc, TEMPLATE_SCHEMA_TYPE);
  if (error !== undefined) throw invalid(file, `unmarshalling template schema: ${error}`);
  const schema = (value as { schema?: string } | undefined)?.schema;
  if (schema === undefined || schema === '')
    throw invalid(file, "template input missing required 'schema' field");
  if (schema === SCHEMA_BASIC_TEMPLATE)
    return renderBasicTemplate(doc as Record<string, unknown>, bundles, options);
  if (schema === SCHEMA_SEMVER_TEMPLATE)
    return renderSemverTemplate(doc as Record<string, unknown>, bundles, options);
  if (schema === SCHEMA_SUBSTITUTES_TEMPLATE)
    return renderSubstitutesTemplate(doc as Record<string, unknown>, bundles, options);
  throw invalid(file, `unknown template schema ${goQuote(schema)}`);
}
