import { type CrdSchema, isRecord } from './schema.js';

/** One version of a CRD of a bundle, with the schema its objects are validated by. */
export interface CrdVersion {
  /** `<plural>.<group>`. */
  readonly crd: string;
  readonly group: string;
  readonly kind: string;
  readonly version: string;
  readonly served: boolean;
  readonly schema: CrdSchema | undefined;
}

/** An example of the CSV's `alm-examples` annotation. */
export interface Example {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly name: string;
  readonly object: Record<string, unknown>;
}

/** Every version of every CustomResourceDefinition among a bundle's manifests. */
export function crdVersionsOf(objects: readonly Record<string, unknown>[]): CrdVersion[] {
  const out: CrdVersion[] = [];
  for (const o of objects) {
    if (o.kind !== 'CustomResourceDefinition' || !isRecord(o.spec)) continue;
    const spec = o.spec;
    const names = isRecord(spec.names) ? spec.names : {};
    const group = typeof spec.group === 'string' ? spec.group : '';
    const kind = typeof names.kind === 'string' ? names.kind : '';
    const crd =
      isRecord(o.metadata) && typeof o.metadata.name === 'string' ? o.metadata.name : `${kind}.${group}`;
    // apiextensions v1beta1 may give one schema for every version.
    const shared = isRecord(spec.validation) ? spec.validation.openAPIV3Schema : undefined;
    const versions = Array.isArray(spec.versions) ? spec.versions.filter(isRecord) : [];
    if (versions.length === 0 && typeof spec.version === 'string') {
      out.push({ crd, group, kind, version: spec.version, served: true, schema: schemaOf(shared) });
    }
    for (const v of versions) {
      const own = isRecord(v.schema) ? v.schema.openAPIV3Schema : undefined;
      out.push({
        crd,
        group,
        kind,
        version: typeof v.name === 'string' ? v.name : '',
        served: v.served !== false,
        schema: schemaOf(own ?? shared),
      });
    }
  }
  return out;
}

function schemaOf(value: unknown): CrdSchema | undefined {
  return isRecord(value) ? (value as CrdSchema) : undefined;
}

/** The CSV's name and examples, or why its `alm-examples` annotation cannot be read. */
export type BundleExamples =
  | { readonly csv: string; readonly examples: readonly Example[] }
  | { readonly csv: string; readonly malformed: string };

/** The examples of the bundle's CSV; none when it has no CSV or no annotation. */
export function examplesOf(objects: readonly Record<string, unknown>[]): BundleExamples | undefined {
  const csv = objects.find((o) => o.kind === 'ClusterServiceVersion');
  if (csv === undefined || !isRecord(csv.metadata)) return undefined;
  const name = typeof csv.metadata.name === 'string' ? csv.metadata.name : '';
  const annotations = isRecord(csv.metadata.annotations) ? csv.metadata.annotations : {};
  const text = annotations['alm-examples'];
  if (text === undefined) return { csv: name, examples: [] };
  if (typeof text !== 'string') return { csv: name, malformed: 'the annotation is not a string' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { csv: name, malformed: `not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!Array.isArray(parsed)) return { csv: name, malformed: 'not a JSON array' };
  const examples: Example[] = [];
  for (const [i, item] of parsed.entries()) {
    if (!isRecord(item) || typeof item.apiVersion !== 'string' || typeof item.kind !== 'string') {
      return { csv: name, malformed: `item ${i} has no apiVersion and kind` };
    }
    const slash = item.apiVersion.lastIndexOf('/');
    const metadata = isRecord(item.metadata) ? item.metadata : {};
    examples.push({
      group: slash < 0 ? '' : item.apiVersion.slice(0, slash),
      version: item.apiVersion.slice(slash + 1),
      kind: item.kind,
      name: typeof metadata.name === 'string' ? metadata.name : '',
      object: item,
    });
  }
  return { csv: name, examples };
}

/** The CRD version an example is validated by, if the bundle has it. */
export function crdVersionFor(
  versions: readonly CrdVersion[],
  example: Pick<Example, 'group' | 'kind' | 'version'>,
): CrdVersion | undefined {
  return versions.find(
    (v) => v.group === example.group && v.kind === example.kind && v.version === example.version,
  );
}
