import { isDeepStrictEqual } from 'node:util';
import { isRecord, type Manifest } from '../manifest/manifest.js';

/** One version of a CRD in apiextensions' internal form. */
export interface InternalVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning?: unknown;
  schema?: unknown;
  subresources?: unknown;
  columns?: unknown[];
}

/**
 * A CRD's spec as apiextensions' internal version holds it after defaulting: the form Kubernetes validates, for
 * v1 and v1beta1 CRDs alike.
 */
export interface InternalSpec {
  group: string;
  scope: string;
  names: Record<string, unknown>;
  version: string;
  versions: InternalVersion[];
  validation?: unknown;
  subresources?: unknown;
  columns: unknown[];
  preserveUnknownFields?: boolean;
  conversion?: Record<string, unknown>;
}

/** The value when it is a string, else empty (Go's zero value). */
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Defaults and converts a v1 or v1beta1 CRD the way apiextensions does before validation. */
export function toInternal(crd: Manifest): InternalSpec {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const v1beta1 = crd.apiVersion === 'apiextensions.k8s.io/v1beta1';
  const names: Record<string, unknown> = isRecord(spec.names) ? { ...spec.names } : {};
  if (str(names.singular) === '') names.singular = str(names.kind).toLowerCase();
  if (str(names.listKind) === '' && str(names.kind) !== '') names.listKind = `${str(names.kind)}List`;
  let versions: InternalVersion[] = (Array.isArray(spec.versions) ? spec.versions : []).map((raw) => {
    const v = isRecord(raw) ? raw : {};
    const out: InternalVersion = {
      name: str(v.name),
      served: v.served === true,
      storage: v.storage === true,
      deprecated: v.deprecated === true,
      deprecationWarning: v.deprecationWarning,
    };
    if (v.schema !== undefined && v.schema !== null) out.schema = v.schema;
    if (v.subresources !== undefined && v.subresources !== null) out.subresources = v.subresources;
    if (Array.isArray(v.additionalPrinterColumns)) out.columns = v.additionalPrinterColumns;
    return out;
  });
  let version = str(spec.version);
  const conversion: Record<string, unknown> = isRecord(spec.conversion)
    ? { ...spec.conversion }
    : { strategy: 'None' };
  const internal: InternalSpec = {
    group: str(spec.group),
    scope: str(spec.scope),
    names,
    version,
    versions,
    columns: [],
    conversion,
  };
  if (v1beta1) {
    if (internal.scope === '') internal.scope = 'Namespaced';
    if (versions.length === 0 && version !== '') {
      versions = [{ name: version, served: true, storage: true, deprecated: false }];
      internal.versions = versions;
    }
    if (version === '' && versions.length > 0) version = versions[0]!.name;
    internal.version = version;
    if (conversion.strategy === 'Webhook' && !Array.isArray(conversion.conversionReviewVersions)) {
      conversion.conversionReviewVersions = ['v1beta1'];
    }
    internal.preserveUnknownFields =
      spec.preserveUnknownFields === undefined ? true : spec.preserveUnknownFields === true;
    if (spec.validation !== undefined && spec.validation !== null) internal.validation = spec.validation;
    if (spec.subresources !== undefined && spec.subresources !== null)
      internal.subresources = spec.subresources;
    if (Array.isArray(spec.additionalPrinterColumns)) internal.columns = spec.additionalPrinterColumns;
  } else {
    internal.preserveUnknownFields = spec.preserveUnknownFields === true;
    if (versions.length > 0) {
      internal.version = versions[0]!.name;
      // Per-version fields that are identical everywhere are promoted to the spec.
      const first = versions[0]!;
      if (versions.every((v) => isDeepStrictEqual(v.subresources, first.subresources))) {
        internal.subresources = first.subresources;
        for (const v of versions) delete v.subresources;
      }
      if (versions.every((v) => isDeepStrictEqual(v.schema, first.schema))) {
        internal.validation = first.schema;
        for (const v of versions) delete v.schema;
      }
      if (versions.every((v) => isDeepStrictEqual(v.columns, first.columns))) {
        internal.columns = first.columns ?? [];
        for (const v of versions) delete v.columns;
      }
    }
  }
  return internal;
}
