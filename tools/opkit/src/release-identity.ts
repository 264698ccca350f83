import type { Catalog } from '@opkit/olm';
import type { OperatorRelease } from './operator-release.js';

/** One rendered catalog template, with how it states channels. */
export interface RenderedTemplate {
  readonly file: string;
  readonly catalog: Catalog;
  /**
   * Whether the template names its channels (olm.template.basic, olm.template.substitutes) rather than
   * deriving them from the bundles' versions (olm.semver: `stable-v0`, …), in which case only the upgrade
   * edges can be held to the operator's release identity.
   */
  readonly namesChannels: boolean;
}

/**
 * Where a rendered template disagrees with the release identity of the operators whose packages it holds:
 * each operator's current version must be a channel entry replacing the version `opkit.replaces` names (or
 * nothing when it names none); in a template that names its channels, the channels listing the version
 * must be `opkit.channels` and the package's default channel its first, as in the bundle's annotations.
 * One line per disagreement, naming the template and the package.json field.
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
    if (!template.namesChannels) continue;
    const named = listing.map((c) => c.name);
    for (const channel of named.filter((n) => !release.channels.includes(n)))
      say(`channel ${channel} lists ${bundle}, but ${release.manifest} opkit.channels does not name it`);
    for (const channel of release.channels.filter((n) => !named.includes(n)))
      say(`no channel ${channel} lists ${bundle}, but ${release.manifest} opkit.channels names it`);
    const defaultChannel = release.channels[0];
    if (defaultChannel !== undefined && pkg.defaultChannel !== defaultChannel)
      say(
        `defaultChannel is ${pkg.defaultChannel}, but ${release.manifest} opkit.channels[0] is ${defaultChannel}`,
      );
  }
  return problems;
}

/** The CSV name `opkit.replaces` names: a version of the same package, or already `<package>.v<version>`. */
function replacedCsvName(release: OperatorRelease): string | undefined {
  if (release.replaces === undefined) return undefined;
  const prefix = `${release.package}.v`;
  return release.replaces.startsWith(prefix) ? release.replaces : `${prefix}${release.replaces}`;
}
