import { join, relative } from 'node:path';
import { BundleAnnotation } from '../bundle/annotations.js';
import type { LoadedBundle } from '../bundle/load.js';
import type { Catalog } from '../catalog/declcfg/types.js';
import { SCHEMA_SEMVER_TEMPLATE } from '../catalog/template/semver-template.js';
import type { OperatorRelease } from './operator-release.js';

/** One rendered catalog template, with its schema (how it states channels). */
export interface RenderedTemplate {
  readonly file: string;
  readonly catalog: Catalog;
  /**
   * The template's `schema`: olm.template.basic and olm.template.substitutes name their channels, olm.semver
   * generates them from the bundles' versions (`stable-v0`, `fast-v1.2`, …).
   */
  readonly schema: string;
}

/**
 * The channel names opm's semver template generates: `<archetype>-v<major>` with `generateMajorChannels`,
 * `<archetype>-v<major>.<minor>` with `generateMinorChannels`, for the candidate, fast and stable bundle lists.
 */
const SEMVER_CHANNEL = /^(candidate|fast|stable)-v\d+(\.\d+)?$/;

/** What in a semver template puts a bundle in `channel`: its bundle list and the kind of channel generated. */
function semverOrigin(channel: string): string {
  const m = SEMVER_CHANNEL.exec(channel);
  if (m === null) return '';
  return ` (olm.semver: ${m[1]}.bundles, ${m[2] === undefined ? 'generateMajorChannels' : 'generateMinorChannels'})`;
}

/**
 * Where a rendered template disagrees with the release identity of the operators whose packages it holds:
 * each operator's current version must be a channel entry replacing the version `opkit.replaces` names (or
 * nothing when it names none); the channels listing the version must be `opkit.channels` and the package's
 * default channel its first, as in the bundle's annotations. A semver template states these too, through
 * the channels it generates: the line says which of its fields generated a channel, and which names it can
 * generate. One line per disagreement, naming the template and the package.json field.
 */
export function releaseDisagreements(
  template: RenderedTemplate,
  releases: readonly OperatorRelease[],
): string[] {
  const problems: string[] = [];
  for (const release of releases) {
    const pkg = template.catalog.packages.find((p) => p.name === release.package);
    if (pkg === undefined) continue;
    const say = (line: string) => problems.push(`${template.file}: ${line}`);
    const bundle = `${release.package}.v${release.version}`;
    const listing = template.catalog.channels.filter(
      (c) => c.package === release.package && c.entries.some((e) => e.name === bundle),
    );
    if (listing.length === 0) {
      say(`no channel lists ${bundle}, but ${release.manifest} version is ${release.version}`);
      continue;
    }
    const replaces = replacedCsvName(release);
    for (const channel of listing) {
      const entry = channel.entries.find((e) => e.name === bundle);
      if (entry?.replaces === replaces) continue;
      say(
        `channel ${channel.name}: ${bundle} replaces ${entry?.replaces ?? 'nothing'}, but ${release.manifest} opkit.replaces ${release.replaces === undefined ? 'is not set' : `is ${release.replaces}`}`,
      );
    }
    const semver = template.schema === SCHEMA_SEMVER_TEMPLATE;
    const named = listing.map((c) => c.name);
    for (const channel of named.filter((n) => !release.channels.includes(n))) {
      const origin = semver ? semverOrigin(channel) : '';
      say(
        `channel ${channel}${origin} lists ${bundle}, but ${release.manifest} opkit.channels does not name it`,
      );
    }
    for (const channel of release.channels.filter((n) => !named.includes(n))) {
      const generated =
        semver && !SEMVER_CHANNEL.test(channel)
          ? ' (olm.semver generates only <candidate|fast|stable>-v<major>[.<minor>] channels)'
          : '';
      say(
        `no channel ${channel} lists ${bundle}, but ${release.manifest} opkit.channels names it${generated}`,
      );
    }
    const defaultChannel = release.channels[0];
    if (defaultChannel !== undefined && pkg.defaultChannel !== defaultChannel)
      say(
        `defaultChannel is ${pkg.defaultChannel}${semver ? " (olm.semver's most stable, newest channel)" : ''}, but ${release.manifest} opkit.channels[0] is ${defaultChannel}`,
      );
  }
  return problems;
}

/**
 * Where the bundle directory of an operator's current version disagrees with its release identity: the
 * channels and default channel of `metadata/annotations.yaml` must be `opkit.channels` and its first, and the
 * CSV must replace what `opkit.replaces` names (`bundle build-all` writes them so; a bundle edited or left from
 * an earlier identity does not). One line per disagreement, naming the bundle file and the package.json field.
 */
export function bundleDisagreements(bundle: LoadedBundle, release: OperatorRelease): string[] {
  const problems: string[] = [];
  const fileOf = (file: string) => relative(process.cwd(), join(bundle.dir, file)) || file;
  const annotations = fileOf('metadata/annotations.yaml');
  const channels = bundle.annotations[BundleAnnotation.channels] ?? '';
  if (channels !== release.channels.join(','))
    problems.push(
      `${annotations}: ${BundleAnnotation.channels} is ${channels}, but ${release.manifest} opkit.channels is ${release.channels.join(',')}`,
    );
  const defaultChannel = bundle.annotations[BundleAnnotation.defaultChannel];
  if (release.channels[0] !== undefined && defaultChannel !== release.channels[0])
    problems.push(
      `${annotations}: ${BundleAnnotation.defaultChannel} is ${defaultChannel ?? 'not set'}, but ${release.manifest} opkit.channels[0] is ${release.channels[0]}`,
    );
  const csv = bundle.manifests.find((m) => m.object === bundle.csv);
  const replaces = typeof bundle.csv.spec.replaces === 'string' ? bundle.csv.spec.replaces : undefined;
  const expected = replacedCsvName(release);
  if (replaces !== expected)
    problems.push(
      `${fileOf(csv?.file ?? 'manifests')}: spec.replaces is ${replaces ?? 'not set'}, but ${release.manifest} opkit.replaces ${release.replaces === undefined ? 'is not set' : `is ${release.replaces}`}`,
    );
  return problems;
}

/** The CSV name `opkit.replaces` names: a version of the same package, or already `<package>.v<version>`. */
function replacedCsvName(release: OperatorRelease): string | undefined {
  if (release.replaces === undefined) return undefined;
  const prefix = `${release.package}.v`;
  return release.replaces.startsWith(prefix) ? release.replaces : `${prefix}${release.replaces}`;
}
