import { compareKubeAwareVersions } from '../../csv/owned-crds.js';
import { byteOrder } from '../../go-compat/go-format.js';
import { isRecord } from '../../manifest/manifest.js';
import type { FindingSeverity } from '../findings.js';
import { compareNode, ownKeywords, type PropertyRule } from './property-checks.js';
import {
  CrdSchemaError,
  canonicalValue,
  DEFAULT_SCHEMA_LIMITS,
  displayPath,
  flattenSchema,
  isBeneath,
  type Schema,
  type SchemaLimits,
  SchemaReader,
} from './schema.js';

/** The CRD rules, each a `crd/<rule>` id. */
export type CrdRule =
  | 'scope-changed'
  | 'stored-version-removed'
  | 'served-version-removed'
  | 'field-removed'
  | PropertyRule
  | 'conversion-changed'
  | 'crd-removed'
  | 'not-checked';

/** One thing `compareCrds` found about a CRD, said in one line naming the CRD, version and field. */
export interface CrdFinding {
  readonly rule: `crd/${CrdRule}`;
  /** `error` exactly where OLM v1's preflight refuses the upgrade. */
  readonly severity: FindingSeverity;
  /** The CRD's name, `memcacheds.cache.example.com`. */
  readonly crd: string;
  /** The version the finding is in; for a difference between two served versions, `v1alpha1 → v1beta1`. */
  readonly version?: string;
  /** For a difference between two served versions of the next CRD: the older and the newer. */
  readonly servedVersions?: readonly [string, string];
  /** The field, JSONPath-like: `spec.size`, `spec.list.items`, `spec.x.anyOf[0]`; the root is `<root>`. */
  readonly path?: string;
  /**
   * The crdify validation by which OLM v1's preflight refuses the upgrade (`scope`, `storedVersionRemoval`,
   * `existingFieldRemoval`, `type`, `enum`, `required`, `default`, `maximum`, …, `pattern`, `nullable`,
   * `oneOf`, `unhandled`); absent when the preflight lets it through.
   */
  readonly olmCheck?: string;
  readonly message: string;
}

interface CrdVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly schema: Schema | undefined;
}

interface ReadCrd {
  readonly name: string;
  readonly scope: string;
  readonly versions: readonly CrdVersion[];
  readonly storedVersions: readonly string[];
  readonly conversion: string;
}

/**
 * Reads an apiextensions.k8s.io/v1 CRD object as the API server decodes it; throws {@link CrdSchemaError} for
 * one it would not accept in a way that matters here, or one over the limits.
 */
function readCrd(object: object, limits: SchemaLimits, label: string): ReadCrd {
  const cached = readCrds.get(object);
  if (cached !== undefined && cached.limits === limits) return cached.read;
  const read = decodeCrd(object, limits, label);
  readCrds.set(object, { limits, read });
  return read;
}

/** A CRD object read once, though an edge check compares a bundle's CRDs with both its neighbours'. */
const readCrds = new WeakMap<object, { readonly limits: SchemaLimits; readonly read: ReadCrd }>();

function decodeCrd(object: object, limits: SchemaLimits, label: string): ReadCrd {
  const crd = object as Record<string, unknown>;
  const metadata = isRecord(crd.metadata) ? crd.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  if (name === '') throw new CrdSchemaError(`the ${label} CRD has no metadata.name`);
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const rawVersions = Array.isArray(spec.versions) ? spec.versions : [];
  const reader = new SchemaReader(name, limits);
  const versions = rawVersions.map((v, i): CrdVersion => {
    if (!isRecord(v) || typeof v.name !== 'string') {
      throw new CrdSchemaError(`${name}: spec.versions[${i}] has no name`);
    }
    const schema = isRecord(v.schema) ? reader.read(v.schema.openAPIV3Schema, v.name) : undefined;
    return { name: v.name, served: v.served === true, storage: v.storage === true, schema };
  });
  const status = isRecord(crd.status) ? crd.status : {};
  const stored = Array.isArray(status.storedVersions)
    ? status.storedVersions.filter((v): v is string => typeof v === 'string')
    : [];
  const conversion =
    isRecord(spec.conversion) && typeof spec.conversion.strategy === 'string'
      ? spec.conversion.strategy
      : 'None';
  return {
    name,
    scope: typeof spec.scope === 'string' ? spec.scope : '',
    versions,
    storedVersions: stored,
    conversion,
  };
}

/** Options of {@link compareCrds}. */
export interface CompareCrdsOptions {
  readonly limits?: SchemaLimits;
}

/**
 * What changes between two versions of one CRD (`previous` as a cluster has it, `next` as an upgrade applies
 * it), by the rules of OLM v1's CRD upgrade-safety preflight, which refuses every `error` finding:
 * - `crd/scope-changed`: `spec.scope` changed.
 * - `crd/stored-version-removed`: a version objects may be stored in (the previous storage version, or one in
 *   the previous `status.storedVersions`) is gone from `spec.versions`. The preflight reads the cluster's
 *   `status.storedVersions`, which always holds the storage version; a bundle carries no status, so the
 *   previous storage version stands for it.
 * - `crd/field-removed`: a field of a version both have is gone (the topmost one; those beneath go with it).
 *   Refused even under `x-kubernetes-preserve-unknown-fields`, where stored data survives.
 * - the property rules of {@link compareNode}, for every field of a version both have; and, unless the next
 *   CRD converts by webhook, between every two served versions of the next CRD, older to newer (objects are
 *   served in every version unconverted), less the differences the previous CRD already had between them.
 * - warnings the preflight lets through: `crd/served-version-removed` (clients of that version break),
 *   `crd/conversion-changed` from `Webhook` to `None` (objects are then served in every version as stored);
 *   info: `crd/conversion-changed` to `Webhook`.
 *
 * Throws {@link CrdSchemaError} for a CRD over the schema limits or one the API server would not accept.
 */
export function compareCrds(previous: object, next: object, options: CompareCrdsOptions = {}): CrdFinding[] {
  const limits = options.limits ?? DEFAULT_SCHEMA_LIMITS;
  const before = readCrd(previous, limits, 'previous');
  const after = readCrd(next, limits, 'next');
  const crd = after.name;
  // Differences carry a key (which served-version differences the previous CRD already had) until returned.
  const findings: (CrdFinding & { readonly key?: string })[] = [];

  if (before.scope !== after.scope) {
    findings.push({
      rule: 'crd/scope-changed',
      severity: 'error',
      crd,
      olmCheck: 'scope',
      message: `${crd}: scope changed ${before.scope || '(none)'} → ${after.scope || '(none)'}`,
    });
  }

  const nextVersions = new Map(after.versions.map((v) => [v.name, v]));
  const stored = new Set([
    ...before.storedVersions,
    ...before.versions.filter((v) => v.storage).map((v) => v.name),
  ]);
  const storedRemoved = new Set([...stored].filter((v) => !nextVersions.has(v)));
  for (const version of [...storedRemoved].sort(compareKubeAwareVersions)) {
    findings.push({
      rule: 'crd/stored-version-removed',
      severity: 'error',
      crd,
      version,
      olmCheck: 'storedVersionRemoval',
      message: `${crd} ${version}: stored version removed: objects stored in it could no longer be read`,
    });
  }
  // The preflight does not look at served versions as such; a client of a version that goes away breaks.
  for (const version of before.versions) {
    if (!version.served || storedRemoved.has(version.name)) continue;
    const kept = nextVersions.get(version.name);
    if (kept?.served) continue;
    findings.push({
      rule: 'crd/served-version-removed',
      severity: 'warning',
      crd,
      version: version.name,
      message: `${crd} ${version.name}: served version ${kept ? 'no longer served' : 'removed'}: its clients break`,
    });
  }

  if (before.conversion !== after.conversion) {
    const toNone = after.conversion === 'None';
    findings.push({
      rule: 'crd/conversion-changed',
      // To None: every served version is then checked against the others (findings below), and objects are
      // served as stored. To Webhook: the operator must serve conversions; the preflight stops comparing
      // served versions.
      severity: toNone ? 'warning' : 'info',
      crd,
      message: `${crd}: conversion strategy changed ${before.conversion} → ${after.conversion}${
        toNone ? ': objects are served in every version unconverted' : ''
      }`,
    });
  }

  for (const version of before.versions) {
    const newer = nextVersions.get(version.name);
    if (newer === undefined) continue;
    findings.push(...compareSchemas(crd, version.name, version.schema, newer.schema, 'same'));
  }

  // OLM v1 sets crdify's conversion policy to Ignore: with a conversion webhook, served versions may differ.
  if (after.conversion !== 'Webhook') {
    const known = new Set(servedPairFindings(crd, before).map(pairKey));
    findings.push(...servedPairFindings(crd, after).filter((f) => !known.has(pairKey(f))));
  }
  return findings.map(({ key: _key, ...finding }) => finding);
}

type KeyedFinding = CrdFinding & { readonly key: string };

function pairKey(finding: KeyedFinding): string {
  return `${finding.version}\u0000${finding.path}\u0000${finding.key}`;
}

/** Differences between every two served versions of a CRD, older to newer in Kubernetes version order. */
function servedPairFindings(crd: string, read: ReadCrd): KeyedFinding[] {
  const served = read.versions
    .filter((v) => v.served)
    .sort((a, b) => compareKubeAwareVersions(a.name, b.name));
  const findings: KeyedFinding[] = [];
  for (let i = 0; i < served.length; i++) {
    for (let j = i + 1; j < served.length; j++) {
      const older = served[i] as CrdVersion;
      const newer = served[j] as CrdVersion;
      findings.push(...compareSchemas(crd, [older.name, newer.name], older.schema, newer.schema, 'served'));
    }
  }
  return findings;
}

/**
 * The differences of every field of one schema to another: a version's previous and next schema (`same`), or
 * two served versions' (`served`). A field of the first that the second lacks is removed: always refused in
 * `same`; in `served`, refused when its own keywords are (a field with only a description is not).
 */
function compareSchemas(
  crd: string,
  version: string | readonly [string, string],
  before: Schema | undefined,
  after: Schema | undefined,
  mode: 'same' | 'served',
): KeyedFinding[] {
  const label = typeof version === 'string' ? version : `${version[0]} → ${version[1]}`;
  const where = {
    crd,
    version: label,
    ...(typeof version === 'string' ? {} : { servedVersions: version }),
  };
  const newer = flattenSchema(after);
  const findings: KeyedFinding[] = [];
  const removed: { path: string; node: Schema }[] = [];
  for (const [path, node] of flattenSchema(before)) {
    const other = newer.get(path);
    if (other === undefined) {
      if (mode === 'same' || compareNode(ownKeywords(node), {}).length > 0) removed.push({ path, node });
      continue;
    }
    for (const change of compareNode(ownKeywords(node), ownKeywords(other))) {
      const shown = displayPath(path);
      findings.push({
        rule: `crd/${change.rule}`,
        severity: 'error',
        ...where,
        path: shown,
        olmCheck: change.check,
        message: `${crd} ${label}: field ${shown} ${change.detail}`,
        key: change.key,
      });
    }
  }
  for (const { path, node } of removed) {
    if (removed.some((other) => isBeneath(path, other.path))) continue;
    const shown = displayPath(path);
    const beneath = removed.filter((other) => isBeneath(other.path, path)).length;
    const kept = preservedBy(newer, path);
    findings.push({
      rule: 'crd/field-removed',
      severity: 'error',
      ...where,
      path: shown,
      olmCheck: 'existingFieldRemoval',
      message: `${crd} ${label}: field ${shown} removed${
        beneath > 0 ? ` with ${beneath} ${beneath === 1 ? 'field' : 'fields'} beneath it` : ''
      }${kept ? ' (its data is kept under x-kubernetes-preserve-unknown-fields, yet OLM v1 refuses it)' : ''}`,
      key: `removed:${canonicalValue(ownKeywords(node))}`,
    });
  }
  // By field, then rule: a stable order whatever order the manifest listed properties in.
  return findings.sort(
    (a, b) =>
      byteOrder(a.path ?? '', b.path ?? '') || byteOrder(a.rule, b.rule) || byteOrder(a.message, b.message),
  );
}

/** Whether the nearest ancestor of `path` that the schema still has preserves unknown fields. */
function preservedBy(flat: ReadonlyMap<string, Schema>, path: string): boolean {
  let ancestor = path;
  for (;;) {
    const cut = Math.max(ancestor.lastIndexOf('.'), ancestor.lastIndexOf('['));
    if (cut <= 0) return flat.get('^')?.['x-kubernetes-preserve-unknown-fields'] === true;
    ancestor = ancestor.slice(0, cut);
    const node = flat.get(ancestor);
    if (node !== undefined) return node['x-kubernetes-preserve-unknown-fields'] === true;
  }
}
