import { byteOrder } from '../../go-compat/go-format.js';
import { compareVersions, parseVersion, type Version } from '../../semver/version.js';
import { type ChannelBlob, type ChannelEntry, SCHEMA_CHANNEL } from '../declcfg/types.js';

/** What generating the channels reads of a semver template: which channels, and which kind is the default. */
export interface ChannelGeneration {
  readonly generateMajorChannels: boolean;
  readonly generateMinorChannels: boolean;
  readonly defaultChannelTypePreference: 'major' | 'minor';
}

/** The semver template's bundle lists, from least to most stable. */
export const ARCHETYPES = ['candidate', 'fast', 'stable'] as const;
export type Archetype = (typeof ARCHETYPES)[number];
type Kind = '' | 'major' | 'minor';
const KIND_PRIORITY: Record<Kind, number> = { '': 0, major: 1, minor: 2 };

/** One bundle's entry in one generated channel. */
interface Tuple {
  readonly arch: Archetype;
  readonly kind: 'major' | 'minor';
  readonly parent: string;
  readonly name: string;
  readonly version: Version;
  readonly index: number;
}

/** The channel that is the default so far. */
interface HighWater {
  readonly arch: Archetype;
  readonly kind: Kind;
  readonly version: Version;
  readonly name: string;
}

/** Whether `h` is a better default channel than `other`: more stable, then newer, then of the preferred kind. */
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

/** The channels the template asks for, with their entries and edges, and the default channel's name. */
export function generateChannels(
  template: ChannelGeneration,
  versions: ReadonlyMap<Archetype, ReadonlyMap<string, Version>>,
  packageName: string,
  file: string,
): { channels: ChannelBlob[]; defaultChannel: string } {
  let highWater: HighWater = { arch: 'candidate', kind: '', version: parseVersion('0.0.0'), name: '' };
  const channels = new Map<string, ChannelBlob>();
  const tuples: Tuple[] = [];
  for (const arch of ARCHETYPES) {
    const entries = versions.get(arch) ?? new Map<string, Version>();
    for (const [name, version] of byVersion(entries)) {
      for (const [kind, channelName] of channelsOf(template, arch, version)) {
        let channel = channels.get(channelName);
        if (channel === undefined) {
          channel = {
            schema: SCHEMA_CHANNEL,
            name: channelName,
            package: packageName,
            entries: [],
            source: { file, index: 0 },
          };
          channels.set(channelName, channel);
          const candidate: HighWater = { arch, kind, version, name: channelName };
          if (highWaterGt(candidate, highWater, template.defaultChannelTypePreference)) highWater = candidate;
        }
        channel.entries.push({ name });
        tuples.push({ arch, kind, parent: channelName, name, version, index: channel.entries.length - 1 });
      }
    }
  }
  linkChannels(channels, tuples);
  return { channels: [...channels.values()], defaultChannel: highWater.name };
}

/** Bundle names and versions, lowest version first (ties keep their order). */
function byVersion(entries: ReadonlyMap<string, Version>): [string, Version][] {
  return [...entries.entries()].sort(([, a], [, b]) => compareVersions(a, b));
}

/** The channels a bundle of `version` in `arch` joins: `<arch>-v<X>` and/or `<arch>-v<X>.<Y>`. */
function channelsOf(
  template: ChannelGeneration,
  arch: Archetype,
  version: Version,
): ['major' | 'minor', string][] {
  const kinds: ['major' | 'minor', string][] = [];
  if (template.generateMajorChannels) kinds.push(['major', `${arch}-v${version.major}`]);
  if (template.generateMinorChannels) kinds.push(['minor', `${arch}-v${version.major}.${version.minor}`]);
  return kinds;
}

/**
 * Sets the upgrade edges of every channel entry. Entries are walked by archetype, kind and version; within one
 * archetype, kind and major version, the highest patch of each minor replaces the highest patch of the previous
 * minor and skips every lower version seen so far.
 */
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
