import { SemverError } from '../semver/errors.js';
import { goQuote } from '../semver/go-quote.js';
import { parseRange } from '../semver/range.js';
import { formatVersion, type PrereleaseIdentifier, parseVersion, type Version } from '../semver/version.js';
import { byteOrder, goStringSlice } from './go-format.js';
import {
  type ParsedProperties,
  PROPERTY_BUNDLE_OBJECT,
  PROPERTY_CSV_METADATA,
  PROPERTY_PACKAGE,
  PropertyParseError,
  parseProperties,
  readBundleObjects,
} from './properties.js';
import { dns1123LabelErrors, pullSpecError } from './pullspec.js';
import { checkReplacesChain } from './replaces-chain.js';
import {
  type BundleBlob,
  type Catalog,
  type ChannelBlob,
  type DeprecationReference,
  type PackageBlob,
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_DEPRECATIONS,
  SCHEMA_PACKAGE,
} from './types.js';
import type { ValidationCode, ValidationResult, ValidationStage } from './validation-result.js';
import { parseRelease } from './version-release.js';

/** Options of {@link validateCatalog}. */
export interface ValidateCatalogOptions {
  /** Add opkit's own warnings (stage `lint`), which never make a catalog invalid. Default `true`. */
  readonly warnings?: boolean;
}

interface MBundle {
  readonly name: string;
  readonly replaces: string;
  readonly skips: readonly string[];
  readonly skipRange: string;
  blob?: BundleBlob;
  version?: Version;
  release: PrereleaseIdentifier[];
  deprecation?: string;
}

interface MChannel {
  readonly name: string;
  readonly blob?: ChannelBlob;
  readonly bundles: Map<string, MBundle>;
  deprecation?: string;
}

interface MPackage {
  readonly name: string;
  readonly blob: PackageBlob;
  readonly channels: Map<string, MChannel>;
  defaultChannel?: MChannel;
  deprecation?: string;
}

function versionString(b: MBundle): string {
  const v = b.version ? formatVersion(b.version) : '0.0.0';
  return b.release.length > 0 ? `${v}-${b.release.map(String).join('.')}` : v;
}

function goReference(ref: DeprecationReference): string {
  return `declcfg.PackageScopedReference{Schema:${goQuote(ref.schema)}, Name:${goQuote(ref.name ?? '')}}`;
}

function sortedValues<T>(map: Map<string, T>): T[] {
  return [...map.keys()].sort(byteOrder).map((k) => map.get(k)!);
}

/**
 * Validates a catalog like `opm validate` (operator-registry v1.73.0): first the checks of
 * `declcfg.ConvertToModel` (stage `convert`), then — only when those pass, as opm never gets further —
 * `model.Validate` (stage `model`). Messages are opm's, verbatim. Unlike opm, which stops at the first convert
 * problem, every convert problem is reported (blobs at fault are left out of the model), and channel entries
 * without a bundle are checked in every channel (opm only checks the last channel it loaded per package).
 * With `warnings` (default), opkit's own `lint` warnings follow; they never make a catalog invalid.
 *
 * Use {@link formatValidationResults} to print the results the way opm does.
 */
export function validateCatalog(catalog: Catalog, options: ValidateCatalogOptions = {}): ValidationResult[] {
  const results: ValidationResult[] = [];
  const add = (
    stage: ValidationStage,
    code: ValidationCode,
    message: string,
    where: { package?: string; channel?: string; bundle?: string; file?: string | undefined } = {},
    level: 'error' | 'warning' = 'error',
  ): void => {
    const r: { -readonly [K in keyof ValidationResult]: ValidationResult[K] } = {
      level,
      code,
      stage,
      message,
    };
    if (where.package !== undefined) r.package = where.package;
    if (where.channel !== undefined) r.channel = where.channel;
    if (where.bundle !== undefined) r.bundle = where.bundle;
    if (where.file !== undefined) r.file = where.file;
    results.push(r);
  };
  const convert = (code: ValidationCode, message: string, where: Parameters<typeof add>[3] = {}): void =>
    add('convert', code, message, where);

  // --- ConvertToModel: packages
  const packages = new Map<string, MPackage>();
  const defaultChannels = new Map<string, string>();
  for (const p of catalog.packages) {
    const file = p.source?.file;
    if (p.name === '') {
      convert('PACKAGE_NAME_MISSING', 'config contains package with no name', { file });
      continue;
    }
    if (packages.has(p.name)) {
      convert('PACKAGE_DUPLICATE', `duplicate package ${goQuote(p.name)}`, { package: p.name, file });
      continue;
    }
    const dnsErrors = dns1123LabelErrors(p.name);
    if (dnsErrors.length > 0) {
      const message = `invalid package name ${goQuote(p.name)}: ${goStringSlice(dnsErrors)}`;
      convert('PACKAGE_NAME_INVALID', message, { package: p.name, file });
      continue;
    }
    packages.set(p.name, { name: p.name, blob: p, channels: new Map() });
    defaultChannels.set(p.name, p.defaultChannel);
  }

  // --- channels
  const channelEntries = new Map<string, Set<string>>();
  for (const c of catalog.channels) {
    const file = c.source?.file;
    const pkg = packages.get(c.package);
    if (pkg === undefined) {
      const message = `unknown package ${goQuote(c.package)} for channel ${goQuote(c.name)}`;
      convert('CHANNEL_UNKNOWN_PACKAGE', message, { package: c.package, channel: c.name, file });
      continue;
    }
    if (c.name === '') {
      convert('CHANNEL_NAME_MISSING', `package ${goQuote(c.package)} contains channel with no name`, {
        package: c.package,
        file,
      });
      continue;
    }
    if (pkg.channels.has(c.name)) {
      const message = `package ${goQuote(c.package)} has duplicate channel ${goQuote(c.name)}`;
      convert('CHANNEL_DUPLICATE', message, { package: c.package, channel: c.name, file });
      continue;
    }
    const channel: MChannel = { name: c.name, blob: c, bundles: new Map() };
    const entries = channelEntries.get(c.package) ?? new Set<string>();
    for (const e of c.entries) {
      if (channel.bundles.has(e.name)) {
        const message = `invalid package ${goQuote(c.package)}, channel ${goQuote(c.name)}: duplicate entry ${goQuote(e.name)}`;
        convert('CHANNEL_ENTRY_DUPLICATE', message, {
          package: c.package,
          channel: c.name,
          bundle: e.name,
          file,
        });
        continue;
      }
      entries.add(e.name);
      channel.bundles.set(e.name, {
        name: e.name,
        replaces: e.replaces ?? '',
        skips: e.skips ?? [],
        skipRange: e.skipRange ?? '',
        release: [],
      });
    }
    channelEntries.set(c.package, entries);
    pkg.channels.set(c.name, channel);
    if (defaultChannels.get(c.package) === c.name) pkg.defaultChannel = channel;
  }

  // --- bundles
  const packageBundles = new Map<string, Set<string>>();
  const bundleBlobsSeen = new Map<string, Set<string>>();
  const parsedProps = new Map<BundleBlob, ParsedProperties>();
  for (const b of catalog.bundles) {
    const file = b.source?.file;
    const where = { package: b.package, bundle: b.name, file };
    if (b.package === '') {
      convert('BUNDLE_PACKAGE_MISSING', `package name must be set for bundle ${goQuote(b.name)}`, where);
      continue;
    }
    const pkg = packages.get(b.package);
    if (pkg === undefined) {
      convert(
        'BUNDLE_UNKNOWN_PACKAGE',
        `unknown package ${goQuote(b.package)} for bundle ${goQuote(b.name)}`,
        where,
      );
      continue;
    }
    const seen = bundleBlobsSeen.get(b.package) ?? new Set<string>();
    bundleBlobsSeen.set(b.package, seen);
    seen.add(b.name);
    const names = packageBundles.get(b.package) ?? new Set<string>();
    packageBundles.set(b.package, names);
    if (names.has(b.name)) {
      convert(
        'BUNDLE_DUPLICATE',
        `package ${goQuote(b.package)} has duplicate bundle ${goQuote(b.name)}`,
        where,
      );
      continue;
    }
    names.add(b.name);
    let props: ParsedProperties;
    try {
      props = parseProperties(b.properties);
    } catch (err) {
      if (!(err instanceof PropertyParseError)) throw err;
      convert(
        'BUNDLE_PROPERTIES_INVALID',
        `parse properties for bundle ${goQuote(b.name)}: ${err.message}`,
        where,
      );
      continue;
    }
    parsedProps.set(b, props);
    if (props.packages.length !== 1) {
      const message = `package ${goQuote(b.package)} bundle ${goQuote(b.name)} must have exactly 1 ${goQuote(PROPERTY_PACKAGE)} property, found ${props.packages.length}`;
      convert('BUNDLE_PACKAGE_PROPERTY_COUNT', message, where);
      continue;
    }
    const pp = props.packages[0]!;
    if (b.package !== pp.packageName) {
      const message = `package ${goQuote(b.package)} does not match ${goQuote(PROPERTY_PACKAGE)} property ${goQuote(pp.packageName)}`;
      convert('BUNDLE_PACKAGE_PROPERTY_MISMATCH', message, where);
      continue;
    }
    const imageError = b.image === '' ? undefined : pullSpecError(b.image);
    if (imageError !== undefined) {
      const message = `package ${goQuote(b.package)} bundle ${goQuote(b.name)} image: invalid image pull spec ${goQuote(b.image)}: ${imageError}`;
      convert('BUNDLE_IMAGE_INVALID', message, where);
      continue;
    }
    const relatedError = (b.relatedImages ?? []).findIndex((r) => r.image !== '' && pullSpecError(r.image));
    if (relatedError >= 0) {
      const image = b.relatedImages![relatedError]!.image;
      const message = `package ${goQuote(b.package)} bundle ${goQuote(b.name)} relatedImages[${relatedError}].image: invalid image pull spec ${goQuote(image)}: ${pullSpecError(image)}`;
      convert('BUNDLE_RELATED_IMAGE_INVALID', message, where);
      continue;
    }
    let version: Version;
    try {
      version = parseVersion(pp.version);
    } catch (err) {
      if (!(err instanceof SemverError)) throw err;
      const message = `error parsing bundle ${goQuote(b.name)} version ${goQuote(pp.version)}: ${err.message}`;
      convert('BUNDLE_VERSION_INVALID', message, where);
      continue;
    }
    let release: PrereleaseIdentifier[] = [];
    if (pp.release) {
      try {
        release = parseRelease(pp.release);
      } catch (err) {
        const message = `error parsing bundle ${goQuote(b.name)} release version ${goQuote(pp.release)}: ${(err as Error).message}`;
        convert('BUNDLE_RELEASE_INVALID', message, where);
        continue;
      }
    }
    channelEntries.get(b.package)?.delete(b.name);
    let found = false;
    for (const ch of pkg.channels.values()) {
      const mb = ch.bundles.get(b.name);
      if (mb === undefined) continue;
      found = true;
      mb.blob = b;
      mb.version = version;
      mb.release = release;
    }
    if (!found) {
      const message = `package ${goQuote(b.package)}, bundle ${goQuote(b.name)} not found in any channel entries`;
      convert('BUNDLE_NOT_IN_CHANNEL', message, where);
    }
  }
  for (const pkgName of [...channelEntries.keys()].sort(byteOrder)) {
    const missing = [...channelEntries.get(pkgName)!]
      .filter((n) => !bundleBlobsSeen.get(pkgName)?.has(n))
      .sort(byteOrder);
    if (missing.length > 0) {
      const message = `no olm.bundle blobs found in package ${goQuote(pkgName)} for olm.channel entries ${goStringSlice(missing)}`;
      convert('CHANNEL_ENTRY_WITHOUT_BUNDLE', message, {
        package: pkgName,
        file: packages.get(pkgName)?.blob.source?.file,
      });
    }
  }
  for (const pkg of packages.values()) {
    const name = defaultChannels.get(pkg.name) ?? '';
    if (name !== '' && pkg.defaultChannel === undefined) {
      const channel: MChannel = { name, bundles: new Map() };
      pkg.defaultChannel = channel;
      pkg.channels.set(name, channel);
    }
  }

  // --- deprecations
  const deprecated = new Set<string>();
  catalog.deprecations.forEach((d, i) => {
    const file = d.source?.file;
    if (d.package === '') {
      convert('DEPRECATION_PACKAGE_MISSING', `package name must be set for deprecation item ${i}`, { file });
      return;
    }
    const pkg = packages.get(d.package);
    if (pkg === undefined) {
      const message = `cannot apply deprecations to an unknown package ${goQuote(d.package)}`;
      convert('DEPRECATION_UNKNOWN_PACKAGE', message, { package: d.package, file });
      return;
    }
    if (deprecated.has(d.package)) {
      const message = `expected a maximum of one deprecation per package: ${goQuote(d.package)}`;
      convert('DEPRECATION_DUPLICATE', message, { package: d.package, file });
      return;
    }
    deprecated.add(d.package);
    const references = new Set<string>();
    d.entries.forEach((entry, j) => {
      const ref = entry.reference;
      const where = { package: d.package, file };
      if (ref.schema === '') {
        const message = `schema must be set for deprecation entry [${j}] for package ${goQuote(d.package)}`;
        convert('DEPRECATION_SCHEMA_MISSING', message, where);
        return;
      }
      const key = `${ref.schema}\u0000${ref.name ?? ''}`;
      if (references.has(key)) {
        const message = `duplicate deprecation entry ${goReference(ref)} for package ${goQuote(d.package)}`;
        convert('DEPRECATION_ENTRY_DUPLICATE', message, where);
        return;
      }
      references.add(key);
      const refName = ref.name ?? '';
      switch (ref.schema) {
        case SCHEMA_BUNDLE:
          if (!packageBundles.get(d.package)?.has(refName)) {
            const message = `cannot deprecate bundle ${goQuote(refName)} for package ${goQuote(d.package)}: bundle not found`;
            convert('DEPRECATION_UNKNOWN_BUNDLE', message, { ...where, bundle: refName });
            return;
          }
          for (const ch of pkg.channels.values()) {
            const mb = ch.bundles.get(refName);
            if (mb) mb.deprecation = entry.message;
          }
          return;
        case SCHEMA_CHANNEL: {
          const ch = pkg.channels.get(refName);
          if (ch === undefined) {
            const message = `cannot deprecate channel ${goQuote(refName)} for package ${goQuote(d.package)}: channel not found`;
            convert('DEPRECATION_UNKNOWN_CHANNEL', message, { ...where, channel: refName });
            return;
          }
          ch.deprecation = entry.message;
          return;
        }
        case SCHEMA_PACKAGE:
          if (refName !== '') {
            const message = `package name must be empty for deprecated package ${goQuote(d.package)} (specified ${goQuote(refName)})`;
            convert('DEPRECATION_PACKAGE_NAME_SET', message, where);
            return;
          }
          pkg.deprecation = entry.message;
          return;
        default: {
          const message = `cannot deprecate object ${goReference(ref)} referenced by entry ${j} for package ${goQuote(d.package)}: object schema unknown`;
          convert('DEPRECATION_UNKNOWN_SCHEMA', message, where);
        }
      }
    });
  });

  if (results.length === 0) validateModel(packages, add);
  if (options.warnings ?? true) lint(catalog, packages, parsedProps, add);
  return results;
}

type Add = (
  stage: ValidationStage,
  code: ValidationCode,
  message: string,
  where?: { package?: string; channel?: string; bundle?: string; file?: string | undefined },
  level?: 'error' | 'warning',
) => void;

/** opm's `model.Validate`, in a deterministic order (packages, channels and bundles sorted by name). */
function validateModel(packages: Map<string, MPackage>, add: Add): void {
  for (const pkg of sortedValues(packages)) {
    const pkgWhere = { package: pkg.name, file: pkg.blob.source?.file };
    const model = (code: ValidationCode, message: string, where = pkgWhere): void =>
      add('model', code, message, where);
    if (pkg.defaultChannel === undefined) model('DEFAULT_CHANNEL_MISSING', 'default channel must be set');
    if (pkg.channels.size === 0) model('PACKAGE_NO_CHANNELS', 'package must contain at least one channel');
    for (const ch of sortedValues(pkg.channels)) {
      const chWhere = { package: pkg.name, channel: ch.name, file: ch.blob?.source?.file ?? pkgWhere.file };
      if (ch.bundles.size === 0) model('CHANNEL_EMPTY', 'channel must contain at least one bundle', chWhere);
      else {
        const chain = checkReplacesChain([...ch.bundles.values()]);
        if (chain.error !== undefined) {
          const code: ValidationCode =
            chain.kind === 'cycle'
              ? 'CHANNEL_REPLACES_CYCLE'
              : chain.kind === 'stranded'
                ? 'CHANNEL_STRANDED_BUNDLES'
                : chain.kind === 'no-head'
                  ? 'CHANNEL_NO_HEAD'
                  : 'CHANNEL_MULTIPLE_HEADS';
          model(code, chain.error, chWhere);
        }
      }
      for (const b of sortedValues(ch.bundles)) validateBundle(pkg, ch, b, add);
      if (ch.deprecation === '')
        model('DEPRECATION_MESSAGE_MISSING', 'invalid deprecation: message must be set', chWhere);
    }
    const duplicates = duplicateVersions(pkg);
    if (duplicates !== undefined) model('DUPLICATE_VERSIONS', duplicates);
    if (pkg.deprecation === '')
      model('DEPRECATION_MESSAGE_MISSING', 'invalid deprecation: message must be set');
  }
}

function validateBundle(pkg: MPackage, ch: MChannel, b: MBundle, add: Add): void {
  const where = {
    package: pkg.name,
    channel: ch.name,
    bundle: b.name,
    file: b.blob?.source?.file ?? ch.blob?.source?.file,
  };
  const model = (code: ValidationCode, message: string): void => add('model', code, message, where);
  if (b.name === '') model('BUNDLE_NAME_MISSING', 'name must be set');
  const normalized = b.release.length > 0 ? `${pkg.name}-v${versionString(b)}` : b.name;
  if (b.name !== normalized) {
    model(
      'BUNDLE_NAME_NOT_NORMALIZED',
      `name ${goQuote(b.name)} does not match normalized name ${goQuote(normalized)}`,
    );
  }
  b.skips.forEach((s, i) => {
    if (s === '') model('BUNDLE_SKIP_EMPTY', `skip[${i}] is empty`);
  });
  if (b.skipRange !== '') {
    try {
      parseRange(b.skipRange);
    } catch (err) {
      if (!(err instanceof SemverError)) throw err;
      model(
        'BUNDLE_SKIP_RANGE_INVALID',
        `invalid skipRange ${goQuote(b.skipRange)}: ${(err as Error).message}`,
      );
    }
  }
  if (b.blob !== undefined && b.blob.image === '' && readBundleObjects(b.blob).objects.length === 0) {
    model('BUNDLE_IMAGE_MISSING', 'bundle image must be set');
  }
  if (b.deprecation === '') model('DEPRECATION_MESSAGE_MISSING', 'invalid deprecation: message must be set');
  if ((b.version?.build.length ?? 0) > 0 && b.release.length > 0) {
    model(
      'BUNDLE_BUILD_METADATA_WITH_RELEASE',
      'cannot use build metadata in version with a release version',
    );
  }
}

function duplicateVersions(pkg: MPackage): string | undefined {
  const byVersion = new Map<string, Set<string>>();
  for (const ch of pkg.channels.values()) {
    for (const b of ch.bundles.values()) {
      const v = versionString(b);
      const names = byVersion.get(v) ?? new Set<string>();
      names.add(b.name);
      byVersion.set(v, names);
    }
  }
  const errs = [...byVersion.keys()]
    .sort(byteOrder)
    .filter((v) => byVersion.get(v)!.size > 1)
    .map((v) => `{${v}: [${[...byVersion.get(v)!].sort(byteOrder).join(', ')}]}`);
  return errs.length > 0 ? `duplicate versions found in bundles: [${errs.join(' ')}]` : undefined;
}

/** opkit's own warnings; they never make a catalog invalid. */
function lint(
  catalog: Catalog,
  packages: Map<string, MPackage>,
  props: Map<BundleBlob, ParsedProperties>,
  add: Add,
): void {
  const warn = (code: ValidationCode, message: string, where: Parameters<Add>[3]): void =>
    add('lint', code, message, where, 'warning');
  for (const o of catalog.others) {
    if (o.schema === SCHEMA_DEPRECATIONS) continue;
    warn('UNKNOWN_SCHEMA', `blob with unknown schema ${goQuote(o.schema)} is kept but not used by OLM`, {
      package: o.package || undefined,
      file: o.source?.file,
    });
  }
  for (const b of catalog.bundles) {
    const p = props.get(b);
    if (p && p.bundleObjects.length > 0 && p.csvMetadatas.length === 0) {
      warn(
        'BUNDLE_OBJECT_DEPRECATED',
        `bundle ${goQuote(b.name)} carries deprecated ${goQuote(PROPERTY_BUNDLE_OBJECT)} properties without ${goQuote(PROPERTY_CSV_METADATA)}`,
        { package: b.package, bundle: b.name, file: b.source?.file },
      );
    }
  }
  for (const pkg of sortedValues(packages)) {
    for (const ch of sortedValues(pkg.channels)) {
      for (const b of sortedValues(ch.bundles)) removedApiVersions(ch, b, props, warn);
      const chain = checkReplacesChain([...ch.bundles.values()]);
      const head = chain.head === undefined ? undefined : ch.bundles.get(chain.head)?.blob;
      const p = head ? props.get(head) : undefined;
      if (head && p && p.csvMetadatas.length === 0 && p.bundleObjects.length === 0) {
        warn(
          'CHANNEL_HEAD_WITHOUT_METADATA',
          `channel head ${goQuote(head.name)} has neither ${goQuote(PROPERTY_CSV_METADATA)} nor ${goQuote(PROPERTY_BUNDLE_OBJECT)}: consoles show no description for it`,
          { package: pkg.name, channel: ch.name, bundle: head.name, file: head.source?.file },
        );
      }
    }
  }
}

/**
 * An upgrade edge that stops providing an API version its predecessor provided: the CRD installed by the
 * predecessor may still store objects in that version (`status.storedVersions`), and OLM refuses such an
 * upgrade ("risk of data loss") until they are rewritten and the version is trimmed from the CRD's status.
 */
function removedApiVersions(
  ch: MChannel,
  b: MBundle,
  props: Map<BundleBlob, ParsedProperties>,
  warn: (code: ValidationCode, message: string, where: Parameters<Add>[3]) => void,
): void {
  const provided = (bundle: MBundle | undefined) =>
    new Map(
      ((bundle?.blob && props.get(bundle.blob)?.gvks) ?? []).map((g) => [
        `${g.group}/${g.version}, Kind=${g.kind}`,
        g,
      ]),
    );
  const next = provided(b);
  if (next.size === 0) return;
  for (const from of [b.replaces, ...b.skips].filter((name) => name !== '')) {
    const previous = ch.bundles.get(from);
    for (const [key, gvk] of provided(previous)) {
      if (next.has(key)) continue;
      const kindsStillThere = [...next.values()].some((g) => g.group === gvk.group && g.kind === gvk.kind);
      if (!kindsStillThere) continue; // the kind is gone altogether: a different decision, not a version drop
      warn(
        'API_VERSION_REMOVED',
        `bundle ${goQuote(b.name)} no longer serves ${key}, which ${goQuote(from)} does: objects stored in ${gvk.version} must be rewritten in the new storage version and ${gvk.version} removed from the CRD's status.storedVersions before this upgrade, or OLM refuses it`,
        { package: b.blob?.package, channel: ch.name, bundle: b.name, file: b.blob?.source?.file },
      );
    }
  }
}
