import { goQuote } from '../../go-compat/go-format.js';
import {
  type GvkProperty,
  type ParsedProperties,
  PROPERTY_BUNDLE_OBJECT,
  PROPERTY_CSV_METADATA,
} from '../declcfg/properties.js';
import { type BundleBlob, type Catalog, SCHEMA_DEPRECATIONS } from '../declcfg/types.js';
import { type CatalogModel, type ModelBundle, type ModelChannel, sortedValues } from './catalog-model.js';
import { replacesChainOf } from './replaces-chain.js';
import type { ReportFinding } from './validation-report.js';

type BundleProperties = ReadonlyMap<BundleBlob, ParsedProperties>;

/** opkit's own warnings; they never make a catalog invalid. */
export function lintCatalog(catalog: Catalog, model: CatalogModel, warn: ReportFinding): void {
  warnUnknownSchemas(catalog, warn);
  warnBundleObjectsWithoutCsvMetadata(catalog, model.properties, warn);
  const provided = providedApis(model.properties);
  for (const pkg of sortedValues(model.packages)) {
    for (const channel of sortedValues(pkg.channels)) {
      // Indexed: this runs once per bundle, mostly before V8 optimizes it, and an iterator costs an object
      // per step until then.
      const bundles = sortedValues(channel.bundles);
      for (let i = 0; i < bundles.length; i++) warnRemovedApiVersions(channel, bundles[i]!, provided, warn);
      warnHeadWithoutMetadata(pkg.name, channel, model.properties, warn);
    }
  }
}

function warnUnknownSchemas(catalog: Catalog, warn: ReportFinding): void {
  for (const other of catalog.others) {
    if (other.schema === SCHEMA_DEPRECATIONS) continue;
    warn('UNKNOWN_SCHEMA', `blob with unknown schema ${goQuote(other.schema)} is kept but not used by OLM`, {
      package: other.package || undefined,
      file: other.source?.file,
    });
  }
}

function warnBundleObjectsWithoutCsvMetadata(
  catalog: Catalog,
  properties: BundleProperties,
  warn: ReportFinding,
): void {
  for (let i = 0; i < catalog.bundles.length; i++) {
    const blob = catalog.bundles[i]!;
    const parsed = properties.get(blob);
    if (parsed === undefined || parsed.bundleObjects.length === 0 || parsed.csvMetadatas.length > 0) continue;
    warn(
      'BUNDLE_OBJECT_DEPRECATED',
      `bundle ${goQuote(blob.name)} carries deprecated ${goQuote(PROPERTY_BUNDLE_OBJECT)} properties without ${goQuote(PROPERTY_CSV_METADATA)}`,
      { package: blob.package, bundle: blob.name, file: blob.source?.file },
    );
  }
}

/** Consoles describe a channel by its head's CSV metadata; without any, they show nothing. */
function warnHeadWithoutMetadata(
  packageName: string,
  channel: ModelChannel,
  properties: BundleProperties,
  warn: ReportFinding,
): void {
  const chain = replacesChainOf(channel);
  const head = chain.head === undefined ? undefined : channel.bundles.get(chain.head)?.blob;
  const parsed = head ? properties.get(head) : undefined;
  if (head === undefined || parsed === undefined) return;
  if (parsed.csvMetadatas.length > 0 || parsed.bundleObjects.length > 0) return;
  warn(
    'CHANNEL_HEAD_WITHOUT_METADATA',
    `channel head ${goQuote(head.name)} has neither ${goQuote(PROPERTY_CSV_METADATA)} nor ${goQuote(PROPERTY_BUNDLE_OBJECT)}: consoles show no description for it`,
    { package: packageName, channel: channel.name, bundle: head.name, file: head.source?.file },
  );
}

/** The APIs a bundle provides. */
interface Apis {
  readonly gvks: readonly GvkProperty[];
  /** Each API keyed as Go prints a GroupVersionKind; made on first use, as most edges never need it. */
  byKey?: ReadonlyMap<string, GvkProperty>;
}

type ProvidedApis = (bundle: ModelBundle | undefined) => Apis;

const NONE_PROVIDED: Apis = { gvks: [] };

const apiKey = (g: GvkProperty): string => `${g.group}/${g.version}, Kind=${g.kind}`;

function apisByKey(apis: Apis): ReadonlyMap<string, GvkProperty> {
  apis.byKey ??= new Map(apis.gvks.map((g) => [apiKey(g), g]));
  return apis.byKey;
}

/**
 * Whether two bundles provide the same APIs in the same order, so that an edge between them drops none: most
 * edges of a channel join such bundles. Compared field by field, without building a key for each API.
 */
function sameApis(a: readonly GvkProperty[], b: readonly GvkProperty[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as GvkProperty;
    const y = b[i] as GvkProperty;
    if (x.group !== y.group || x.version !== y.version || x.kind !== y.kind) return false;
  }
  return true;
}

/** {@link ProvidedApis} made once per blob: every bundle is the target of one edge and the source of others. */
function providedApis(properties: BundleProperties): ProvidedApis {
  const byBlob = new Map<BundleBlob, Apis>();
  return (bundle) => {
    const blob = bundle?.blob;
    if (blob === undefined) return NONE_PROVIDED;
    let apis = byBlob.get(blob);
    if (apis === undefined) {
      apis = { gvks: properties.get(blob)?.gvks ?? [] };
      byBlob.set(blob, apis);
    }
    return apis;
  };
}

/**
 * An upgrade edge that stops providing an API version its predecessor provided: the CRD installed by the
 * predecessor may still store objects in that version (`status.storedVersions`), and OLM refuses such an
 * upgrade ("risk of data loss") until they are rewritten and the version is trimmed from the CRD's status.
 */
function warnRemovedApiVersions(
  channel: ModelChannel,
  bundle: ModelBundle,
  provided: ProvidedApis,
  warn: ReportFinding,
): void {
  const nextApis = provided(bundle);
  if (nextApis.gvks.length === 0) return;
  warnRemovedApiVersionsFrom(channel, bundle, bundle.replaces, nextApis, provided, warn);
  for (let i = 0; i < bundle.skips.length; i++) {
    warnRemovedApiVersionsFrom(channel, bundle, bundle.skips[i]!, nextApis, provided, warn);
  }
}

/** {@link warnRemovedApiVersions} for the edge from `from` (replaced or skipped) to `bundle`. */
function warnRemovedApiVersionsFrom(
  channel: ModelChannel,
  bundle: ModelBundle,
  from: string,
  nextApis: Apis,
  provided: ProvidedApis,
  warn: ReportFinding,
): void {
  if (from === '') return;
  const previous = provided(channel.bundles.get(from));
  if (sameApis(previous.gvks, nextApis.gvks)) return;
  const next = apisByKey(nextApis);
  for (const [key, gvk] of apisByKey(previous)) {
    if (next.has(key)) continue;
    const kindsStillThere = [...next.values()].some((g) => g.group === gvk.group && g.kind === gvk.kind);
    if (!kindsStillThere) continue; // the kind is gone altogether: a different decision, not a version drop
    warn(
      'API_VERSION_REMOVED',
      `bundle ${goQuote(bundle.name)} no longer serves ${key}, which ${goQuote(from)} does: objects stored in ${gvk.version} must be rewritten in the new storage version and ${gvk.version} removed from the CRD's status.storedVersions before this upgrade, or OLM refuses it`,
      {
        package: bundle.blob?.package,
        channel: channel.name,
        bundle: bundle.name,
        file: bundle.blob?.source?.file,
      },
    );
  }
}
