// A bundle's place in version order as opm's declcfg sees it: the `olm.package` version, then its `release`
// (dot-separated identifiers, compared as semver pre-release identifiers).

import { decodeGoBase64 } from '../../go-compat/go-base64.js';
import { goQuote } from '../../go-compat/go-format.js';
import {
  compareVersions,
  type PrereleaseIdentifier,
  parsePrerelease,
  parseVersion,
  type Version,
} from '../../semver/version.js';
import { yamlLibrary } from '../../yaml-library.js';
import { PROPERTY_BUNDLE_OBJECT, PROPERTY_CSV_METADATA, PROPERTY_PACKAGE } from '../declcfg/properties.js';
import type { BundleBlob } from '../declcfg/types.js';

const RELEASE_MAX_LENGTH = 20;

/** opm's `model.NewRelease`: dot-separated prerelease identifiers, at most 20 characters. */
export function parseRelease(release: string): PrereleaseIdentifier[] {
  if (release === '') return [];
  if (release.length > RELEASE_MAX_LENGTH) {
    throw new Error(
      `invalid release ${goQuote(release)}: exceeds maximum length of ${RELEASE_MAX_LENGTH} characters`,
    );
  }
  const errors: string[] = [];
  const out: PrereleaseIdentifier[] = [];
  release.split('.').forEach((segment, i) => {
    try {
      out.push(parsePrerelease(segment));
    } catch (err) {
      errors.push(`segment ${i}: ${(err as Error).message}`);
    }
  });
  if (errors.length > 0) throw new Error(`invalid release ${goQuote(release)}: ${errors.join('\n')}`);
  return out;
}

export interface VersionRelease {
  readonly version: Version;
  readonly release: readonly PrereleaseIdentifier[];
}

const SUBSTITUTES_FOR = 'olm.substitutesFor';

/** Whether the bundle's CSV carries `olm.substitutesFor`: such bundles once spelt their release as build metadata. */
function usesLegacyReleaseVersion(bundle: BundleBlob): boolean {
  for (const p of bundle.properties) {
    if (p.type === PROPERTY_CSV_METADATA) {
      const annotations = (p.value as { annotations?: Record<string, unknown> } | null)?.annotations;
      if (annotations?.[SUBSTITUTES_FOR]) return true;
    } else if (p.type === PROPERTY_BUNDLE_OBJECT) {
      const data = (p.value as { data?: unknown } | null)?.data;
      if (typeof data !== 'string') continue;
      try {
        const obj = yamlLibrary().parse(Buffer.from(decodeGoBase64(data)).toString('utf8'), {
          maxAliasCount: 100,
        }) as {
          kind?: string;
          metadata?: { annotations?: Record<string, unknown> };
        } | null;
        if (obj?.kind === 'ClusterServiceVersion')
          return Boolean(obj.metadata?.annotations?.[SUBSTITUTES_FOR]);
      } catch {
        // not an object opm could read: not the CSV
      }
    }
  }
  return false;
}

/**
 * declcfg's `Bundle.VersionRelease`: the version and release of the bundle's one `olm.package` property. A
 * bundle whose CSV has `olm.substitutesFor` and no release reads its version's build metadata as the release.
 *
 * @throws Error with opm's message when there is no or more than one `olm.package`, or a value does not parse
 */
export function bundleVersionRelease(bundle: BundleBlob): VersionRelease {
  const packages = bundle.properties.filter((p) => p.type === PROPERTY_PACKAGE);
  if (packages.length > 1) throw new Error(`must be exactly one property of type "${PROPERTY_PACKAGE}"`);
  const value = packages[0]?.value as { version?: unknown; release?: unknown } | undefined;
  if (!value) throw new Error(`no "olm.package" property found for bundle ${goQuote(bundle.name)}`);
  const versionText = typeof value.version === 'string' ? value.version : '';
  let version: Version;
  try {
    version = parseVersion(versionText);
  } catch (err) {
    throw new Error(
      `invalid semver version ${goQuote(versionText)} in "olm.package" property for bundle ${goQuote(bundle.name)}: ${(err as Error).message}`,
    );
  }
  const releaseText = typeof value.release === 'string' ? value.release : '';
  let release: PrereleaseIdentifier[];
  try {
    release = parseRelease(releaseText);
  } catch (err) {
    throw new Error(
      `invalid release ${goQuote(releaseText)} in "olm.package" property for bundle ${goQuote(bundle.name)}: ${(err as Error).message}`,
    );
  }
  if (release.length === 0 && version.build.length > 0 && usesLegacyReleaseVersion(bundle)) {
    release = parseRelease(version.build.join('.'));
    version = { ...version, build: [] };
  }
  return { version, release };
}

/** Order by version, then a bundle with a release after one without, then by release. */
export function compareVersionReleases(a: VersionRelease, b: VersionRelease): -1 | 0 | 1 {
  const byVersion = compareVersions(a.version, b.version);
  if (byVersion !== 0) return byVersion;
  if (a.release.length > 0 && b.release.length === 0) return 1;
  if (a.release.length === 0 && b.release.length > 0) return -1;
  const asVersion = (pre: readonly PrereleaseIdentifier[]): Version => ({
    major: 0n,
    minor: 0n,
    patch: 0n,
    pre,
    build: [],
  });
  return compareVersions(asVersion(a.release), asVersion(b.release));
}
