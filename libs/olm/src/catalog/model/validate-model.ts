import { byteOrder, goQuote } from '../../go-compat/go-format.js';
import { SemverError } from '../../semver/errors.js';
import { parseRange } from '../../semver/range.js';
import {
  type CatalogModel,
  type ModelBundle,
  type ModelChannel,
  type ModelPackage,
  sortedValues,
  versionString,
} from './catalog-model.js';
import { type ReplacesChainResult, replacesChainOf } from './replaces-chain.js';
import type { FindingLocation, ReportFinding } from './validation-report.js';
import type { ValidationCode } from './validation-result.js';

/** One broken rule: opm's message for it. */
interface Problem {
  readonly code: ValidationCode;
  readonly message: string;
}

type PackageRule = (pkg: ModelPackage) => readonly Problem[];
type ChannelRule = (channel: ModelChannel) => readonly Problem[];
type BundleRule = (bundle: ModelBundle, pkg: ModelPackage) => readonly Problem[];

/** What a rule returns when it finds nothing: one shared list, as almost every rule finds nothing. */
const NO_PROBLEMS: readonly Problem[] = [];

const DEPRECATION_MESSAGE_MISSING: Problem = {
  code: 'DEPRECATION_MESSAGE_MISSING',
  message: 'invalid deprecation: message must be set',
};

/** Package rules checked before the package's channels, as opm's `Package.Validate` orders them. */
const packageRulesBeforeChannels: readonly PackageRule[] = [defaultChannelSet, hasChannels];
const packageRulesAfterChannels: readonly PackageRule[] = [uniqueVersions, packageDeprecationHasMessage];
/** Channel rules checked before the channel's bundles. */
const channelRulesBeforeBundles: readonly ChannelRule[] = [bundlesFormOneReplacesChain];
const channelRulesAfterBundles: readonly ChannelRule[] = [channelDeprecationHasMessage];
const bundleRules: readonly BundleRule[] = [
  bundleNameSet,
  bundleNameNormalized,
  skipsNotEmpty,
  skipRangeValid,
  imageOrObjectsSet,
  bundleDeprecationHasMessage,
  noBuildMetadataWithRelease,
];

/** opm's `model.Validate`, in a deterministic order (packages, channels and bundles sorted by name). */
export function validateModel(model: CatalogModel, report: ReportFinding): void {
  // Indexed loops, and a finding's location built only when a rule finds something: every rule runs on every
  // bundle, nearly always finding nothing, and a CLI run is over before most of this code is optimized.
  const check = <T, P>(
    rules: readonly ((subject: T, parent: P) => readonly Problem[])[],
    subject: T,
    parent: P,
    where: () => FindingLocation,
  ): void => {
    let location: FindingLocation | undefined;
    for (let r = 0; r < rules.length; r++) {
      const problems = rules[r]!(subject, parent);
      for (let p = 0; p < problems.length; p++) {
        location ??= where();
        report(problems[p]!.code, problems[p]!.message, location);
      }
    }
  };
  for (const pkg of sortedValues(model.packages)) {
    const packageWhere = () => ({ package: pkg.name, file: pkg.blob.source?.file });
    check(packageRulesBeforeChannels, pkg, undefined, packageWhere);
    for (const channel of sortedValues(pkg.channels)) {
      const channelWhere = () => ({
        package: pkg.name,
        channel: channel.name,
        file: channel.blob?.source?.file ?? pkg.blob.source?.file,
      });
      check(channelRulesBeforeBundles, channel, undefined, channelWhere);
      const bundles = sortedValues(channel.bundles);
      for (let b = 0; b < bundles.length; b++) {
        const bundle = bundles[b]!;
        check(bundleRules, bundle, pkg, () => ({
          package: pkg.name,
          channel: channel.name,
          bundle: bundle.name,
          file: bundle.blob?.source?.file ?? channel.blob?.source?.file,
        }));
      }
      check(channelRulesAfterBundles, channel, undefined, channelWhere);
    }
    check(packageRulesAfterChannels, pkg, undefined, packageWhere);
  }
}

function defaultChannelSet(pkg: ModelPackage): readonly Problem[] {
  return pkg.defaultChannel === undefined
    ? [{ code: 'DEFAULT_CHANNEL_MISSING', message: 'default channel must be set' }]
    : NO_PROBLEMS;
}

function hasChannels(pkg: ModelPackage): readonly Problem[] {
  return pkg.channels.size === 0
    ? [{ code: 'PACKAGE_NO_CHANNELS', message: 'package must contain at least one channel' }]
    : NO_PROBLEMS;
}

/** No two bundles of the package, in any channels, share a version (with release). */
function uniqueVersions(pkg: ModelPackage): readonly Problem[] {
  // The first name seen for each version; a set of names only for a version that turns out to be shared.
  const firstName = new Map<string, string>();
  let shared: Map<string, Set<string>> | undefined;
  pkg.channels.forEach((channel) => {
    channel.bundles.forEach((bundle) => {
      const version = versionString(bundle);
      const first = firstName.get(version);
      if (first === undefined) firstName.set(version, bundle.name);
      else if (first !== bundle.name) {
        shared ??= new Map();
        const names = shared.get(version) ?? new Set([first]);
        names.add(bundle.name);
        shared.set(version, names);
      }
    });
  });
  if (shared === undefined) return NO_PROBLEMS;
  const duplicates = [...shared.entries()]
    .sort(([a], [b]) => byteOrder(a, b))
    .map(([version, names]) => `{${version}: [${[...names].sort(byteOrder).join(', ')}]}`);
  return [
    { code: 'DUPLICATE_VERSIONS', message: `duplicate versions found in bundles: [${duplicates.join(' ')}]` },
  ];
}

function packageDeprecationHasMessage(pkg: ModelPackage): readonly Problem[] {
  return pkg.deprecation === '' ? [DEPRECATION_MESSAGE_MISSING] : NO_PROBLEMS;
}

/** A channel has bundles, and its replaces edges form one chain from a single head. */
function bundlesFormOneReplacesChain(channel: ModelChannel): readonly Problem[] {
  if (channel.bundles.size === 0) {
    return [{ code: 'CHANNEL_EMPTY', message: 'channel must contain at least one bundle' }];
  }
  const chain = replacesChainOf(channel);
  return chain.error === undefined
    ? NO_PROBLEMS
    : [{ code: replacesChainCode(chain.kind), message: chain.error }];
}

function replacesChainCode(kind: ReplacesChainResult['kind']): ValidationCode {
  switch (kind) {
    case 'cycle':
      return 'CHANNEL_REPLACES_CYCLE';
    case 'stranded':
      return 'CHANNEL_STRANDED_BUNDLES';
    case 'no-head':
      return 'CHANNEL_NO_HEAD';
    default:
      return 'CHANNEL_MULTIPLE_HEADS';
  }
}

function channelDeprecationHasMessage(channel: ModelChannel): readonly Problem[] {
  return channel.deprecation === '' ? [DEPRECATION_MESSAGE_MISSING] : NO_PROBLEMS;
}

function bundleNameSet(bundle: ModelBundle): readonly Problem[] {
  return bundle.name === '' ? [{ code: 'BUNDLE_NAME_MISSING', message: 'name must be set' }] : NO_PROBLEMS;
}

/** A bundle with a release must be named `<package>-v<version>-<release>`. */
function bundleNameNormalized(bundle: ModelBundle, pkg: ModelPackage): readonly Problem[] {
  const normalized = bundle.release.length > 0 ? `${pkg.name}-v${versionString(bundle)}` : bundle.name;
  if (bundle.name === normalized) return NO_PROBLEMS;
  const message = `name ${goQuote(bundle.name)} does not match normalized name ${goQuote(normalized)}`;
  return [{ code: 'BUNDLE_NAME_NOT_NORMALIZED', message }];
}

function skipsNotEmpty(bundle: ModelBundle): readonly Problem[] {
  if (!bundle.skips.includes('')) return NO_PROBLEMS;
  return bundle.skips.flatMap((skip, index) =>
    skip === '' ? [{ code: 'BUNDLE_SKIP_EMPTY' as const, message: `skip[${index}] is empty` }] : [],
  );
}

function skipRangeValid(bundle: ModelBundle): readonly Problem[] {
  if (bundle.skipRange === '') return NO_PROBLEMS;
  try {
    parseRange(bundle.skipRange);
    return NO_PROBLEMS;
  } catch (err) {
    if (!(err instanceof SemverError)) throw err;
    const message = `invalid skipRange ${goQuote(bundle.skipRange)}: ${err.message}`;
    return [{ code: 'BUNDLE_SKIP_RANGE_INVALID', message }];
  }
}

/** A bundle needs an image unless it carries its manifests as `olm.bundle.object` properties. */
function imageOrObjectsSet(bundle: ModelBundle): readonly Problem[] {
  const blob = bundle.blob;
  // Loading has decoded each of those properties into one object, so counting them is counting the objects.
  if (blob === undefined || blob.image !== '' || (bundle.properties?.bundleObjects.length ?? 0) > 0)
    return NO_PROBLEMS;
  return [{ code: 'BUNDLE_IMAGE_MISSING', message: 'bundle image must be set' }];
}

function bundleDeprecationHasMessage(bundle: ModelBundle): readonly Problem[] {
  return bundle.deprecation === '' ? [DEPRECATION_MESSAGE_MISSING] : NO_PROBLEMS;
}

function noBuildMetadataWithRelease(bundle: ModelBundle): readonly Problem[] {
  if ((bundle.version?.build.length ?? 0) === 0 || bundle.release.length === 0) return NO_PROBLEMS;
  const message = 'cannot use build metadata in version with a release version';
  return [{ code: 'BUNDLE_BUILD_METADATA_WITH_RELEASE', message }];
}
