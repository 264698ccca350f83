// `nx g @opkit/nx:api <group>/<version>/<Kind> --project <operator>`: a new kind in an operator project, as
// `kubebuilder create api` scaffolds one: schema, CRD, controller with RBAC, sample, roles, CSV entry, tests
// (unit, envtest and end-to-end). The same kind again changes nothing; webhooks and versions come after it in
// any order.
import { join } from 'node:path';
import { type GeneratorCallback, generateFiles, logger, type Tree, updateJson } from '@nx/devkit';
import { isMap, isSeq, parseDocument } from 'yaml';
import { kindNames, operatorNames, parseApi } from '../../names.js';
import { formatChangedFiles } from '../format-files.js';
import { readOperatorProject } from '../operator-project.js';
import { type ApiResource, sampleFile, writeProjectIndex } from '../project-index.js';
import { runManifests } from '../run-manifests.js';

export interface ApiGeneratorSchema {
  readonly api: string;
  readonly project: string;
  readonly plural?: string;
  readonly skipManifests?: boolean;
}

export async function apiGenerator(tree: Tree, schema: ApiGeneratorSchema): Promise<GeneratorCallback> {
  const { group, version, kind } = parseApi(schema.api);
  const { root, packageName, resources } = readOperatorProject(tree, schema.project);
  const names = kindNames(kind, schema.plural);
  const same = resources.find((r) => r.kind === kind);
  if (same && same.group === group && [same.version, ...(same.otherVersions ?? [])].includes(version)) {
    logger.warn(
      `${schema.project} has the kind ${kind} at ${group}/${version} already (src/api/${version}/${names.fileName}.ts): nothing changed`,
    );
    return () => {};
  }
  if (same && same.group === group) {
    throw new Error(
      `${schema.project} has the kind ${kind} at ${group}/${same.version} already: serve it at ${version} too with nx g @opkit/nx:version ${version} --project ${schema.project} --kind ${kind}`,
    );
  }
  const clash = resources.find((r) => r === same || kindNames(r.kind, r.plural).fileName === names.fileName);
  if (clash) {
    throw new Error(
      `${schema.project} has the kind ${clash.kind} (${clash.group}/${clash.version}) already, whose files ${kind} would overwrite: choose another kind name`,
    );
  }
  if (resources.some((r) => r.group === group && r.plural === names.plural)) {
    throw new Error(`${schema.project} serves ${names.plural}.${group} already`);
  }
  const resource: ApiResource = { group, version, kind, plural: names.plural };
  generateFiles(tree, join(import.meta.dirname, 'files'), root, {
    ...names,
    ...operatorNames(schema.project),
    packageName,
    project: schema.project,
    group,
    version,
    sampleFile: sampleFile(resource),
    tmpl: '',
  });
  const all = [...resources, resource];
  updateJson(tree, `${root}/package.json`, (json: { opkit: { resources?: ApiResource[] } }) => {
    json.opkit.resources = all;
    return json;
  });
  writeProjectIndex(tree, root, schema.project, all);
  addOwnedCrd(tree, `${root}/config/manifests/bases/${packageName}.clusterserviceversion.yaml`, resource);
  const format = formatChangedFiles(tree);
  const manifests = schema.skipManifests ? undefined : runManifests(tree, root, schema.project);
  return () => {
    format();
    manifests?.();
  };
}

/**
 * Adds the kind to the base CSV's owned CRDs, with a descriptor for each field the scaffold's spec and status
 * have (the scorecard's olm-spec-descriptors and olm-status-descriptors tests ask for them). Comments and
 * everything else in the file stay as written.
 */
function addOwnedCrd(tree: Tree, path: string, r: ApiResource): void {
  const text = tree.read(path, 'utf-8');
  if (text === null) throw new Error(`${path}: missing (the base CSV the bundle is generated from)`);
  const doc = parseDocument(text);
  const crds = doc.getIn(['spec', 'customresourcedefinitions']);
  if (!isMap(crds)) throw new Error(`${path}: spec.customresourcedefinitions is not a map`);
  const owned = crds.get('owned');
  const entry = {
    name: `${r.plural}.${r.group}`,
    kind: r.kind,
    version: r.version,
    displayName: kindNames(r.kind, r.plural).displayName,
    description: `${r.kind} is the Schema for the ${r.plural} API.`,
    resources: [{ kind: 'ConfigMap', name: '', version: 'v1' }],
    specDescriptors: [
      {
        path: 'message',
        displayName: 'Message',
        description: `What the ${r.kind}'s ConfigMap holds.`,
        'x-descriptors': ['urn:alm:descriptor:com.tectonic.ui:text'],
      },
    ],
    statusDescriptors: [
      {
        path: 'conditions',
        displayName: 'Conditions',
        'x-descriptors': ['urn:alm:descriptor:io.kubernetes.conditions'],
      },
      { path: 'observedGeneration', displayName: 'Observed Generation' },
    ],
  };
  if (isSeq(owned)) {
    owned.flow = false;
    owned.add(doc.createNode(entry));
  } else {
    crds.set('owned', doc.createNode([entry]));
  }
  tree.write(path, doc.toString({ lineWidth: 0 }));
}

export default apiGenerator;
