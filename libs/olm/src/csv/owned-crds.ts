import { byteOrder } from '../go-compat/go-format.js';
import type { CrdDescription, Descriptor } from '../manifest/cluster-service-version.js';
import { deepCopy, isRecord, type Manifest } from '../manifest/manifest.js';
import { displayNameOf } from './base.js';

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * apimachinery `CompareKubeAwareVersionStrings`: positive when `a` sorts before `b` in Kubernetes order
 * (`v2` > `v1` > `v2beta1` > `v1beta2` > `v1beta1` > `v2alpha1` > `v1alpha1` > non-Kubernetes versions, the latter
 * alphabetically).
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  const ma = KUBE_VERSION.exec(a);
  const mb = KUBE_VERSION.exec(b);
  if (ma === null && mb === null) return byteOrder(b, a);
  if (ma === null) return -1;
  if (mb === null) return 1;
  const rank = (m: RegExpExecArray) => (m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0);
  // Stability first, then the major version: every GA version sorts before every beta (v1 > v2beta1).
  if (rank(ma) !== rank(mb)) return rank(ma) > rank(mb) ? 1 : -1;
  if (ma[1] !== mb[1]) return Number(ma[1]) > Number(mb[1]) ? 1 : -1;
  const na = Number(ma[3] ?? 0);
  const nb = Number(mb[3] ?? 0);
  return na === nb ? 0 : na > nb ? 1 : -1;
}

/** One version of a CRD in the rendered objects. */
interface CrdVersion {
  readonly name: string;
  readonly version: string;
  readonly kind: string;
  readonly schema: unknown;
}

function crdVersions(crd: Manifest): CrdVersion[] {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  const name = `${String(names.plural ?? '')}.${String(spec.group ?? '')}`;
  const kind = String(names.kind ?? '');
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isRecord) : [];
  if (versions.length === 0 && typeof spec.version === 'string') {
    return [
      {
        name,
        version: spec.version,
        kind,
        schema: isRecord(spec.validation) ? spec.validation.openAPIV3Schema : undefined,
      },
    ];
  }
  return versions.map((v) => ({
    name,
    version: String(v.name ?? ''),
    kind,
    schema: isRecord(v.schema)
      ? v.schema.openAPIV3Schema
      : isRecord(spec.validation)
        ? spec.validation.openAPIV3Schema
        : undefined,
  }));
}

/** The OpenAPI schema node at a descriptor path (`a.b`, `a[0].b`) under `root`. */
function schemaAt(root: unknown, path: string): Record<string, unknown> | undefined {
  let node: unknown = root;
  for (const raw of path.split('.')) {
    const name = raw.replace(/\[\d*\]$/, '');
    if (!isRecord(node) || !isRecord(node.properties)) return undefined;
    node = node.properties[name];
    if (raw.endsWith(']') && isRecord(node)) node = node.items;
  }
  return isRecord(node) ? node : undefined;
}

/** Completes a descriptor that only names its path, from the CRD schema; hand-written ones stay untouched. */
function completeDescriptor(d: Descriptor, schema: unknown, section: 'spec' | 'status'): Descriptor {
  const onlyPath = Object.keys(d).every((k) => k === 'path');
  if (!onlyPath) return d;
  const out: Descriptor = {
    ...d,
    displayName: displayNameOf(
      d.path
        .split('.')
        .pop()!
        .replace(/\[\d*\]$/, ''),
    ),
  };
  const node = schemaAt(
    isRecord(schema) && isRecord(schema.properties) ? schema.properties[section] : undefined,
    d.path,
  );
  if (node !== undefined && typeof node.description === 'string' && node.description !== '')
    out.description = node.description;
  if (section === 'status' && d.path === 'conditions')
    out['x-descriptors'] = ['urn:alm:descriptor:io.kubernetes.conditions'];
  return out;
}

/**
 * `spec.customresourcedefinitions.owned` as `operator-sdk generate bundle` computes it: one entry per version
 * of every CRD; an entry of the base with the same (name, version, kind) is kept as written (display name,
 * description, resources, descriptors). Beyond the SDK:
 * - a new entry gets a display name from its kind and the description of its schema;
 * - a descriptor of the base that only names its `path` asks to be completed from the schema (display name
 *   from the path, description from the property, the conditions x-descriptor).
 * Sorted by name, kind, then Kubernetes version order (newest first).
 */
export function ownedCrdDescriptions(
  crds: readonly Manifest[],
  base: readonly CrdDescription[] = [],
): CrdDescription[] {
  const key = (d: { name: string; version: string; kind: string }) =>
    `${d.name}\u0000${d.version}\u0000${d.kind}`;
  const byKey = new Map(base.map((d) => [key(d), d]));
  const out: CrdDescription[] = [];
  for (const crd of crds) {
    for (const v of crdVersions(crd)) {
      const existing = byKey.get(key(v));
      if (existing !== undefined) {
        const entry = deepCopy(existing);
        if (entry.specDescriptors !== undefined)
          entry.specDescriptors = entry.specDescriptors.map((d) => completeDescriptor(d, v.schema, 'spec'));
        if (entry.statusDescriptors !== undefined) {
          entry.statusDescriptors = entry.statusDescriptors.map((d) =>
            completeDescriptor(d, v.schema, 'status'),
          );
        }
        out.push(entry);
        continue;
      }
      const entry: CrdDescription = {
        name: v.name,
        version: v.version,
        kind: v.kind,
        displayName: displayNameOf(v.kind),
      };
      if (isRecord(v.schema) && typeof v.schema.description === 'string' && v.schema.description !== '') {
        entry.description = v.schema.description;
      }
      out.push(entry);
    }
  }
  return out.sort((a, b) => {
    if (a.name !== b.name) return byteOrder(a.name, b.name);
    if (a.kind !== b.kind) return byteOrder(a.kind, b.kind);
    return -compareKubeAwareVersions(a.version, b.version);
  });
}
