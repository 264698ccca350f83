import { isPlainValidReference } from '@opkit/oci/reference-grammar';
import { NONE } from '../../empty.js';
import { byteOrder, goQuote, goStringSlice } from '../../go-compat/go-format.js';
import { SemverError } from '../../semver/errors.js';
import { type PrereleaseIdentifier, parseVersion, type Version } from '../../semver/version.js';
import {
  type ParsedProperties,
  PROPERTY_PACKAGE,
  PropertyParseError,
  parseProperties,
} from '../declcfg/properties.js';
import {
  type BundleBlob,
  type Catalog,
  type ChannelBlob,
  type DeprecationBlob,
  type DeprecationEntry,
  type DeprecationReference,
  type PackageBlob,
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_PACKAGE,
} from '../declcfg/types.js';
import type { CatalogModel, ModelChannel, ModelPackage } from './catalog-model.js';
import { dns1123LabelErrors, pullSpecError } from './pullspec.js';
import type { ReportFinding } from './validation-report.js';
import { parseRelease } from './version-release.js';

/** What conversion tracks per package beside the model itself. */
interface ConversionState {
  readonly model: CatalogModel;
  /** Channel entries of each package not yet matched by a converted bundle blob. */
  readonly entriesAwaitingBundle: Map<string, Set<string>>;
  /** Names of the bundle blobs of each known package, duplicates and blobs that failed to convert included. */
  readonly bundleBlobNames: Map<string, Set<string>>;
  /** Image pull specs already checked, with their error or {@link VALID_PULL_SPEC}: bundles share images. */
  readonly pullSpecErrors: Map<string, string>;
}

/**
 * opm's `declcfg.ConvertToModel`: builds the package/channel/bundle model from a catalog's blobs, reporting each
 * blob it cannot convert (opm's messages) and leaving that blob out. Unlike opm it does not stop at the first
 * problem. Without `report`, the problems are not reported (the blobs at fault are still left out).
 */
export function convertToModel(catalog: Catalog, report: ReportFinding = () => {}): CatalogModel {
  const state: ConversionState = {
    model: { packages: new Map(), properties: new Map() },
    entriesAwaitingBundle: new Map(),
    bundleBlobNames: new Map(),
    pullSpecErrors: new Map(),
  };
  // Indexed loops here and below: they run once per blob or entry, mostly before V8 optimizes them, and an
  // iterator costs an object per step until then.
  for (let i = 0; i < catalog.packages.length; i++) addPackage(state, catalog.packages[i]!, report);
  for (let i = 0; i < catalog.channels.length; i++) addChannel(state, catalog.channels[i]!, report);
  for (let i = 0; i < catalog.bundles.length; i++) addBundle(state, catalog.bundles[i]!, report);
  reportEntriesWithoutBundle(state, report);
  addUndeclaredDefaultChannels(state.model);
  applyDeprecations(state, catalog.deprecations, report);
  return state.model;
}

function addPackage(state: ConversionState, blob: PackageBlob, report: ReportFinding): void {
  const file = blob.source?.file;
  const packages = state.model.packages;
  if (blob.name === '') {
    report('PACKAGE_NAME_MISSING', 'config contains package with no name', { file });
    return;
  }
  if (packages.has(blob.name)) {
    report('PACKAGE_DUPLICATE', `duplicate package ${goQuote(blob.name)}`, { package: blob.name, file });
    return;
  }
  const dnsErrors = dns1123LabelErrors(blob.name);
  if (dnsErrors.length > 0) {
    const message = `invalid package name ${goQuote(blob.name)}: ${goStringSlice(dnsErrors)}`;
    report('PACKAGE_NAME_INVALID', message, { package: blob.name, file });
    return;
  }
  packages.set(blob.name, { name: blob.name, blob, channels: new Map() });
}

function addChannel(state: ConversionState, blob: ChannelBlob, report: ReportFinding): void {
  const file = blob.source?.file;
  const pkg = state.model.packages.get(blob.package);
  if (pkg === undefined) {
    const message = `unknown package ${goQuote(blob.package)} for channel ${goQuote(blob.name)}`;
    report('CHANNEL_UNKNOWN_PACKAGE', message, { package: blob.package, channel: blob.name, file });
    return;
  }
  if (blob.name === '') {
    const message = `package ${goQuote(blob.package)} contains channel with no name`;
    report('CHANNEL_NAME_MISSING', message, { package: blob.package, file });
    return;
  }
  if (pkg.channels.has(blob.name)) {
    const message = `package ${goQuote(blob.package)} has duplicate channel ${goQuote(blob.name)}`;
    report('CHANNEL_DUPLICATE', message, { package: blob.package, channel: blob.name, file });
    return;
  }
  const channel: ModelChannel = { name: blob.name, blob, bundles: new Map() };
  const awaiting = state.entriesAwaitingBundle.get(blob.package) ?? new Set<string>();
  for (let i = 0; i < blob.entries.length; i++) {
    const entry = blob.entries[i]!;
    if (channel.bundles.has(entry.name)) {
      const message = `invalid package ${goQuote(blob.package)}, channel ${goQuote(blob.name)}: duplicate entry ${goQuote(entry.name)}`;
      report('CHANNEL_ENTRY_DUPLICATE', message, {
        package: blob.package,
        channel: blob.name,
        bundle: entry.name,
        file,
      });
      continue;
    }
    awaiting.add(entry.name);
    channel.bundles.set(entry.name, {
      name: entry.name,
      replaces: entry.replaces ?? '',
      skips: entry.skips ?? NONE,
      skipRange: entry.skipRange ?? '',
      release: NONE,
    });
  }
  state.entriesAwaitingBundle.set(blob.package, awaiting);
  pkg.channels.set(blob.name, channel);
  if (pkg.blob.defaultChannel === blob.name) pkg.defaultChannel = channel;
}

/** A bundle blob's version and release, once every check on the blob has passed. */
interface BundleIdentity {
  readonly version: Version;
  readonly release: readonly PrereleaseIdentifier[];
}

function addBundle(state: ConversionState, blob: BundleBlob, report: ReportFinding): void {
  // The location is built only for a problem: nearly every bundle has none.
  const reportHere: ReportBundleProblem = (code, message) =>
    report(code, message, { package: blob.package, bundle: blob.name, file: blob.source?.file });
  const pkg = bundlePackage(state.model, blob, reportHere);
  if (pkg === undefined) return;
  if (!recordBundleName(state, blob, reportHere)) return;
  const properties = bundleProperties(blob, reportHere);
  if (properties === undefined) return;
  state.model.properties.set(blob, properties);
  const identity = bundleIdentity(blob, properties, state.pullSpecErrors, reportHere);
  if (identity === undefined) return;
  state.entriesAwaitingBundle.get(blob.package)?.delete(blob.name);
  if (!completeChannelEntries(pkg, blob, properties, identity)) {
    const message = `package ${goQuote(blob.package)}, bundle ${goQuote(blob.name)} not found in any channel entries`;
    reportHere('BUNDLE_NOT_IN_CHANNEL', message);
  }
}

/** Reports a problem of the bundle blob being converted (its location is already known). */
type ReportBundleProblem = (code: Parameters<ReportFinding>[0], message: string) => void;

function bundlePackage(
  model: CatalogModel,
  blob: BundleBlob,
  report: ReportBundleProblem,
): ModelPackage | undefined {
  if (blob.package === '') {
    report('BUNDLE_PACKAGE_MISSING', `package name must be set for bundle ${goQuote(blob.name)}`);
    return undefined;
  }
  const pkg = model.packages.get(blob.package);
  if (pkg === undefined) {
    report(
      'BUNDLE_UNKNOWN_PACKAGE',
      `unknown package ${goQuote(blob.package)} for bundle ${goQuote(blob.name)}`,
    );
  }
  return pkg;
}

/** Records the blob's name in its package; false when the package already has a bundle of that name. */
function recordBundleName(state: ConversionState, blob: BundleBlob, report: ReportBundleProblem): boolean {
  const names = state.bundleBlobNames.get(blob.package) ?? new Set<string>();
  state.bundleBlobNames.set(blob.package, names);
  if (names.has(blob.name)) {
    report('BUNDLE_DUPLICATE', `package ${goQuote(blob.package)} has duplicate bundle ${goQuote(blob.name)}`);
    return false;
  }
  names.add(blob.name);
  return true;
}

function bundleProperties(blob: BundleBlob, report: ReportBundleProblem): ParsedProperties | undefined {
  try {
    return parseProperties(blob.properties);
  } catch (err) {
    if (!(err instanceof PropertyParseError)) throw err;
    report('BUNDLE_PROPERTIES_INVALID', `parse properties for bundle ${goQuote(blob.name)}: ${err.message}`);
    return undefined;
  }
}

/** The checks opm makes, in its order, before a bundle blob joins the model. */
function bundleIdentity(
  blob: BundleBlob,
  properties: ParsedProperties,
  pullSpecErrors: Map<string, string>,
  report: ReportBundleProblem,
): BundleIdentity | undefined {
  const [packageProperty] = properties.packages;
  if (properties.packages.length !== 1 || packageProperty === undefined) {
    const message = `package ${goQuote(blob.package)} bundle ${goQuote(blob.name)} must have exactly 1 ${goQuote(PROPERTY_PACKAGE)} property, found ${properties.packages.length}`;
    report('BUNDLE_PACKAGE_PROPERTY_COUNT', message);
    return undefined;
  }
  if (blob.package !== packageProperty.packageName) {
    const message = `package ${goQuote(blob.package)} does not match ${goQuote(PROPERTY_PACKAGE)} property ${goQuote(packageProperty.packageName)}`;
    report('BUNDLE_PACKAGE_PROPERTY_MISMATCH', message);
    return undefined;
  }
  if (!imagesValid(blob, pullSpecErrors, report)) return undefined;
  const version = bundleVersion(blob, packageProperty.version, report);
  if (version === undefined) return undefined;
  const release = bundleRelease(blob, packageProperty.release, report);
  if (release === undefined) return undefined;
  return { version, release };
}

/** What {@link ConversionState.pullSpecErrors} holds for a valid spec: one lookup answers for both kinds. */
const VALID_PULL_SPEC = '';

/**
 * {@link pullSpecError}, remembered per spec. A plain reference (registry, lowercase path, tag) is checked in
 * less time than a lookup takes, so only the others are remembered.
 */
function knownPullSpecError(spec: string, known: Map<string, string>): string | undefined {
  if (isPlainValidReference(spec)) return undefined;
  const knownError = known.get(spec);
  if (knownError !== undefined) return knownError === VALID_PULL_SPEC ? undefined : knownError;
  const error = pullSpecError(spec);
  known.set(spec, error ?? VALID_PULL_SPEC);
  return error;
}

function imagesValid(
  blob: BundleBlob,
  pullSpecErrors: Map<string, string>,
  report: ReportBundleProblem,
): boolean {
  const imageError = blob.image === '' ? undefined : knownPullSpecError(blob.image, pullSpecErrors);
  if (imageError !== undefined) {
    const message = `package ${goQuote(blob.package)} bundle ${goQuote(blob.name)} image: invalid image pull spec ${goQuote(blob.image)}: ${imageError}`;
    report('BUNDLE_IMAGE_INVALID', message);
    return false;
  }
  // opm stops at the first related image it cannot parse.
  const relatedImages = blob.relatedImages ?? [];
  for (let index = 0; index < relatedImages.length; index++) {
    const image = relatedImages[index]!.image;
    // The bundle's own image, usually listed too, has just been found valid.
    const relatedError =
      image === '' || image === blob.image ? undefined : knownPullSpecError(image, pullSpecErrors);
    if (relatedError === undefined) continue;
    const message = `package ${goQuote(blob.package)} bundle ${goQuote(blob.name)} relatedImages[${index}].image: invalid image pull spec ${goQuote(image)}: ${relatedError}`;
    report('BUNDLE_RELATED_IMAGE_INVALID', message);
    return false;
  }
  return true;
}

function bundleVersion(blob: BundleBlob, version: string, report: ReportBundleProblem): Version | undefined {
  try {
    return parseVersion(version);
  } catch (err) {
    if (!(err instanceof SemverError)) throw err;
    const message = `error parsing bundle ${goQuote(blob.name)} version ${goQuote(version)}: ${err.message}`;
    report('BUNDLE_VERSION_INVALID', message);
    return undefined;
  }
}

/** The parsed release; an empty list when the bundle has none. */
function bundleRelease(
  blob: BundleBlob,
  release: string | undefined,
  report: ReportBundleProblem,
): readonly PrereleaseIdentifier[] | undefined {
  if (!release) return NONE;
  try {
    return parseRelease(release);
  } catch (err) {
    const message = `error parsing bundle ${goQuote(blob.name)} release version ${goQuote(release)}: ${(err as Error).message}`;
    report('BUNDLE_RELEASE_INVALID', message);
    return undefined;
  }
}

/**
 * Gives every channel entry naming the blob its blob, properties, version and release; false when no channel
 * lists it.
 */
function completeChannelEntries(
  pkg: ModelPackage,
  blob: BundleBlob,
  properties: ParsedProperties,
  identity: BundleIdentity,
): boolean {
  let found = false;
  pkg.channels.forEach((channel) => {
    const bundle = channel.bundles.get(blob.name);
    if (bundle === undefined) return;
    found = true;
    bundle.blob = blob;
    bundle.properties = properties;
    bundle.version = identity.version;
    bundle.release = identity.release;
  });
  return found;
}

/**
 * Channel entries no bundle blob of the package names. Entries whose blob exists but failed to convert were
 * reported with that blob already.
 */
function reportEntriesWithoutBundle(state: ConversionState, report: ReportFinding): void {
  const { entriesAwaitingBundle, bundleBlobNames } = state;
  for (const packageName of [...entriesAwaitingBundle.keys()].sort(byteOrder)) {
    const missing = [...(entriesAwaitingBundle.get(packageName) ?? [])]
      .filter((name) => !bundleBlobNames.get(packageName)?.has(name))
      .sort(byteOrder);
    if (missing.length === 0) continue;
    const message = `no olm.bundle blobs found in package ${goQuote(packageName)} for olm.channel entries ${goStringSlice(missing)}`;
    report('CHANNEL_ENTRY_WITHOUT_BUNDLE', message, {
      package: packageName,
      file: state.model.packages.get(packageName)?.blob.source?.file,
    });
  }
}

/** A default channel no `olm.channel` blob declares becomes an empty channel, which `model.Validate` rejects. */
function addUndeclaredDefaultChannels(model: CatalogModel): void {
  for (const pkg of model.packages.values()) {
    const name = pkg.blob.defaultChannel ?? '';
    if (name === '' || pkg.defaultChannel !== undefined) continue;
    const channel: ModelChannel = { name, bundles: new Map() };
    pkg.defaultChannel = channel;
    pkg.channels.set(name, channel);
  }
}

function applyDeprecations(
  state: ConversionState,
  deprecations: readonly DeprecationBlob[],
  report: ReportFinding,
): void {
  const deprecatedPackages = new Set<string>();
  deprecations.forEach((blob, index) => {
    const file = blob.source?.file;
    if (blob.package === '') {
      report('DEPRECATION_PACKAGE_MISSING', `package name must be set for deprecation item ${index}`, {
        file,
      });
      return;
    }
    const pkg = state.model.packages.get(blob.package);
    if (pkg === undefined) {
      const message = `cannot apply deprecations to an unknown package ${goQuote(blob.package)}`;
      report('DEPRECATION_UNKNOWN_PACKAGE', message, { package: blob.package, file });
      return;
    }
    if (deprecatedPackages.has(blob.package)) {
      const message = `expected a maximum of one deprecation per package: ${goQuote(blob.package)}`;
      report('DEPRECATION_DUPLICATE', message, { package: blob.package, file });
      return;
    }
    deprecatedPackages.add(blob.package);
    const bundleNames = state.bundleBlobNames.get(blob.package);
    const seenReferences = new Set<string>();
    blob.entries.forEach((entry, entryIndex) => {
      const where = { package: blob.package, file };
      const ref = entry.reference;
      if (ref.schema === '') {
        const message = `schema must be set for deprecation entry [${entryIndex}] for package ${goQuote(blob.package)}`;
        report('DEPRECATION_SCHEMA_MISSING', message, where);
        return;
      }
      const key = `${ref.schema}\u0000${ref.name ?? ''}`;
      if (seenReferences.has(key)) {
        const message = `duplicate deprecation entry ${goReference(ref)} for package ${goQuote(blob.package)}`;
        report('DEPRECATION_ENTRY_DUPLICATE', message, where);
        return;
      }
      seenReferences.add(key);
      applyDeprecationEntry(pkg, bundleNames, entry, entryIndex, (code, message, extra) =>
        report(code, message, { ...where, ...extra }),
      );
    });
  });
}

/** Marks the package, channel or bundle an entry refers to as deprecated, or reports why it cannot. */
function applyDeprecationEntry(
  pkg: ModelPackage,
  bundleNames: ReadonlySet<string> | undefined,
  entry: DeprecationEntry,
  entryIndex: number,
  report: (
    code: Parameters<ReportFinding>[0],
    message: string,
    where?: { bundle?: string; channel?: string },
  ) => void,
): void {
  const ref = entry.reference;
  const refName = ref.name ?? '';
  switch (ref.schema) {
    case SCHEMA_BUNDLE:
      if (!bundleNames?.has(refName)) {
        const message = `cannot deprecate bundle ${goQuote(refName)} for package ${goQuote(pkg.name)}: bundle not found`;
        report('DEPRECATION_UNKNOWN_BUNDLE', message, { bundle: refName });
        return;
      }
      for (const channel of pkg.channels.values()) {
        const bundle = channel.bundles.get(refName);
        if (bundle) bundle.deprecation = entry.message;
      }
      return;
    case SCHEMA_CHANNEL: {
      const channel = pkg.channels.get(refName);
      if (channel === undefined) {
        const message = `cannot deprecate channel ${goQuote(refName)} for package ${goQuote(pkg.name)}: channel not found`;
        report('DEPRECATION_UNKNOWN_CHANNEL', message, { channel: refName });
        return;
      }
      channel.deprecation = entry.message;
      return;
    }
    case SCHEMA_PACKAGE:
      if (refName !== '') {
        const message = `package name must be empty for deprecated package ${goQuote(pkg.name)} (specified ${goQuote(refName)})`;
        report('DEPRECATION_PACKAGE_NAME_SET', message);
        return;
      }
      pkg.deprecation = entry.message;
      return;
    default: {
      const message = `cannot deprecate object ${goReference(ref)} referenced by entry ${entryIndex} for package ${goQuote(pkg.name)}: object schema unknown`;
      report('DEPRECATION_UNKNOWN_SCHEMA', message);
    }
  }
}

/** A reference as Go's `%#v` prints opm's `PackageScopedReference`. */
function goReference(ref: DeprecationReference): string {
  return `declcfg.PackageScopedReference{Schema:${goQuote(ref.schema)}, Name:${goQuote(ref.name ?? '')}}`;
}
