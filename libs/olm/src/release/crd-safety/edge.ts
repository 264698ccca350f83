import { bundlesWithoutManifests, type CatalogEdge } from '../edges.js';
import type { Finding } from '../findings.js';
import { type CompareCrdsOptions, type CrdFinding, compareCrds } from './compare-crds.js';
import { CrdSchemaError } from './schema.js';

const CRD_API_VERSION = 'apiextensions.k8s.io/v1';

function crdsOf(objects: readonly Record<string, unknown>[]): {
  crds: Map<string, Record<string, unknown>>;
  other: string[];
} {
  const crds = new Map<string, Record<string, unknown>>();
  const other: string[] = [];
  for (const object of objects) {
    if (object.kind !== 'CustomResourceDefinition') continue;
    const metadata = object.metadata as { name?: unknown } | undefined;
    const name = typeof metadata?.name === 'string' ? metadata.name : '(unnamed)';
    // OLM v1's preflight checks apiextensions.k8s.io/v1 CRDs only.
    if (object.apiVersion !== CRD_API_VERSION) other.push(`${name} (${String(object.apiVersion)})`);
    else if (!crds.has(name)) crds.set(name, object);
  }
  return { crds, other };
}

/**
 * CRD safety of one upgrade edge: the CRDs of both bundles paired by name and compared by {@link compareCrds};
 * a CRD the `from` bundle has and the `to` bundle lacks is `crd/crd-removed` (a warning: OLM v1's preflight
 * only checks the CRDs the new bundle has, so it does not refuse this, yet the CRD's objects lose their
 * operator). A bundle without manifests gives one `info` finding saying the edge was not checked; a CRD that
 * cannot be read (over the schema limits, or malformed) gives an `error` finding saying why.
 */
export function crdSafetyOfEdge(edge: CatalogEdge, options: CompareCrdsOptions = {}): Finding[] {
  const base = { package: edge.package, edge: { from: edge.from.name, to: edge.to.name } };
  const prefix = `${edge.from.name} → ${edge.to.name}`;
  const fromObjects = edge.from.objects();
  const toObjects = edge.to.objects();
  if (fromObjects === undefined || toObjects === undefined) {
    const { phrase } = bundlesWithoutManifests(edge);
    return [
      {
        ...base,
        rule: 'crd/not-checked',
        severity: 'info',
        message: `${prefix}: CRDs not checked: ${phrase}`,
      },
    ];
  }
  const before = crdsOf(fromObjects);
  const after = crdsOf(toObjects);
  const findings: Finding[] = [];
  for (const text of after.other) {
    findings.push({
      ...base,
      rule: 'crd/not-checked',
      severity: 'info',
      subject: text,
      message: `${prefix}: CRD ${text} not checked: OLM v1 checks ${CRD_API_VERSION} CRDs only`,
    });
  }
  const asFinding = (finding: CrdFinding): Finding => ({
    ...base,
    rule: finding.rule,
    severity: finding.severity,
    subject: [finding.crd, finding.version, finding.path].filter((part) => part !== undefined).join(' '),
    message: `${prefix}: ${finding.message}`,
  });
  for (const [name, previous] of before.crds) {
    const next = after.crds.get(name);
    if (next === undefined) {
      findings.push({
        ...base,
        rule: 'crd/crd-removed',
        severity: 'warning',
        subject: name,
        message: `${prefix}: CRD ${name} of ${edge.from.name} is not in ${edge.to.name}: its objects lose their operator`,
      });
      continue;
    }
    try {
      findings.push(...compareCrds(previous, next, options).map(asFinding));
    } catch (error) {
      if (!(error instanceof CrdSchemaError)) throw error;
      findings.push({
        ...base,
        rule: 'crd/not-checked',
        // A CRD the gate cannot read must not pass as safe.
        severity: 'error',
        subject: name,
        message: `${prefix}: CRD ${name} not checked: ${error.message}`,
      });
    }
  }
  return findings;
}
