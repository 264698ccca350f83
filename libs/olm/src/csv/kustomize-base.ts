import { isDeepStrictEqual } from 'node:util';
import type { Document } from 'yaml';
import type { ClusterServiceVersion } from '../manifest/cluster-service-version.js';
import { isRecord, type Manifest } from '../manifest/manifest.js';
import { yamlLibrary } from '../yaml-library.js';
import { DEFAULT_INSTALL_MODES, defaultBaseCsv } from './base.js';
import { ownedCrdDescriptions } from './owned-crds.js';

/** What a base CSV is made from when the project has none yet. */
export interface FreshBaseFields {
  /** The operator's one-paragraph description (the project's package.json `description`). */
  readonly description: string;
}

/**
 * A fresh base CSV, as `operator-sdk generate kustomize manifests` writes one, but without its placeholder
 * provider, maintainer, link and icon: fields nothing in the project says are left out for the author to add,
 * rather than filled with values the OperatorHub validator would reject.
 */
export function freshBaseCsv(packageName: string, fields: FreshBaseFields): ClusterServiceVersion {
  const { spec, ...csv } = defaultBaseCsv(packageName);
  const { links: _links, icon: _icon, provider: _provider, maintainers: _maintainers, ...kept } = spec;
  return { ...csv, spec: { ...kept, description: fields.description } };
}

/**
 * The text of the base CSV `generate kustomize manifests` writes. Only derived fields change:
 * `spec.customresourcedefinitions.owned` (one entry per CRD version, kept entries as written, path-only
 * descriptors completed from the schema) and `spec.installModes` when missing. Every other field of an
 * existing base, its comments and its layout stay as they are, so running it twice gives the same bytes.
 */
export function kustomizeBaseCsv(
  crds: readonly Manifest[],
  existing: string | undefined,
  packageName: string,
  fresh: FreshBaseFields,
): string {
  const { Document, isMap, parseDocument } = yamlLibrary();
  const doc: Document =
    existing === undefined ? new Document(freshBaseCsv(packageName, fresh)) : parseDocument(existing);
  const [yamlError] = doc.errors;
  if (yamlError !== undefined) throw new Error(`not YAML: ${yamlError.message.split('\n')[0]}`);
  const current: unknown = doc.toJS();
  if (!isRecord(current) || !isRecord(current.spec)) throw new Error('spec: missing, or not a mapping');
  const spec = current.spec as ClusterServiceVersion['spec'];
  const crdSection = spec.customresourcedefinitions ?? {};
  const owned = ownedCrdDescriptions(crds, crdSection.owned ?? []);
  if (!isDeepStrictEqual(owned, crdSection.owned ?? [])) {
    if (owned.length === 0 && crdSection.owned !== undefined)
      doc.deleteIn(['spec', 'customresourcedefinitions', 'owned']);
    else if (owned.length > 0) {
      if (!isMap(doc.getIn(['spec', 'customresourcedefinitions'])))
        doc.setIn(['spec', 'customresourcedefinitions'], doc.createNode({}));
      doc.setIn(['spec', 'customresourcedefinitions', 'owned'], doc.createNode(owned));
    }
  }
  if (spec.installModes === undefined)
    doc.setIn(['spec', 'installModes'], doc.createNode(DEFAULT_INSTALL_MODES.map((m) => ({ ...m }))));
  return doc.toString({ lineWidth: 0 });
}

/**
 * `config/manifests/kustomization.yaml` for a new base: the base CSV and `parts` (the operator's `config/default`
 * and `config/samples`, as paths relative to the kustomization).
 */
export function manifestsKustomization(packageName: string, parts: readonly string[]): string {
  const resources = [`bases/${packageName}.clusterserviceversion.yaml`, ...parts];
  return `# Input of the OLM bundle: the base CSV, the operator and its samples.\nresources:\n${resources.map((r) => `  - ${r}`).join('\n')}\n`;
}
