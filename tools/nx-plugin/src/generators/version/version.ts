// `nx g @opkit/nx:version <version> --project <operator> --kind <Kind>`: the kind served at one more version,
// converted to and from its storage version by the operator's conversion webhook, as `kubebuilder create api`
// for a new version and `kubebuilder create webhook --conversion` scaffold it together. Before or after the
// webhook generator, in either order; a version the kind is served at already changes nothing.
import { join } from 'node:path';
import { type GeneratorCallback, generateFiles, logger, type Tree, updateJson } from '@nx/devkit';
import { isMap, isSeq, parseDocument } from 'yaml';
import { kindNames, operatorNames, parseVersion } from '../../names.js';
import { formatChangedFiles } from '../format-files.js';
import { enableWebhooksInManager } from '../manager-deployment.js';
import { readOperatorProject } from '../operator-project.js';
import { type ApiResource, enableWebhookConfig, sampleFile, writeProjectIndex } from '../project-index.js';
import { runManifests } from '../run-manifests.js';
import { addConversionSpoke, addCrdVersion } from '../source-edits.js';
import { webhooksModule } from '../webhook/webhook-sources.js';

export interface VersionGeneratorSchema {
  readonly version: string;
  readonly project: string;
  readonly kind: string;
  readonly skipManifests?: boolean;
}

export async function versionGenerator(
  tree: Tree,
  schema: VersionGeneratorSchema,
): Promise<GeneratorCallback> {
  const version = parseVersion(schema.version);
  const { root, packageName, resources } = readOperatorProject(tree, schema.project);
  const resource = resources.find((r) => r.kind === schema.kind);
  if (!resource) {
    const known = resources.map((r) => r.kind).join(', ') || 'none yet: add one with @opkit/nx:api';
    throw new Error(`${schema.project} has no kind ${JSON.stringify(schema.kind)} (its kinds: ${known})`);
  }
  const names = kindNames(resource.kind, resource.plural);
  if (version === resource.version || resource.otherVersions?.includes(version)) {
    logger.warn(
      `${schema.kind} is served at ${version} already (src/api/${version}/${names.fileName}.ts${version === resource.version ? ', its storage version' : ''}): nothing changed`,
    );
    return () => {};
  }
  const hub = resource.version;
  const api = `${root}/src/api`;
  const read = (path: string) => {
    const text = tree.read(path, 'utf-8');
    if (text === null) throw new Error(`${path}: missing (the api generator writes it)`);
    return text;
  };

  // The new version's schema starts as a copy of the storage version's, under its own apiVersion.
  const hubModule = `${api}/${hub}/${names.fileName}.ts`;
  tree.write(
    `${api}/${version}/${names.fileName}.ts`,
    `// ${resource.kind} at ${version}, served beside ${hub} (the storage version the controller works on) and converted
// to and from it in ${names.fileName}-conversion.ts. It starts as a copy of ${hub}; change it there.
${read(hubModule).replaceAll(`'${resource.group}/${hub}'`, `'${resource.group}/${version}'`)}`,
  );
  const templateNames = {
    ...names,
    ...operatorNames(schema.project),
    packageName,
    project: schema.project,
    group: resource.group,
    hub,
    version,
    tmpl: '',
  };
  generateFiles(tree, join(import.meta.dirname, 'files'), root, templateNames);

  const crdPath = `${api}/${names.fileName}-crd.ts`;
  tree.write(
    crdPath,
    addCrdVersion(crdPath, read(crdPath), {
      storage: hub,
      version,
      schemaName: `${names.propertyName}Schema`,
      module: `./${version}/${names.fileName}.js`,
    }),
  );
  const webhooksPath = `${api}/${hub}/${names.fileName}-webhooks.ts`;
  if (tree.exists(webhooksPath)) {
    tree.write(
      webhooksPath,
      addConversionSpoke(webhooksPath, read(webhooksPath), {
        declaration: `${names.propertyName}Webhooks`,
        hub,
        version,
        module: `../${version}/${names.fileName}-conversion.js`,
      }),
    );
  } else {
    // A declaration with the conversion alone; the webhook generator adds admission webhooks to it.
    tree.write(
      webhooksPath,
      webhooksModule(
        { ...names, project: schema.project },
        { defaulting: false, validation: false, hub, spokes: [version] },
      ),
    );
  }

  const updated: ApiResource = {
    ...resource,
    otherVersions: [...(resource.otherVersions ?? []), version],
    webhooks: { defaulting: false, validation: false, ...resource.webhooks, conversion: true },
  };
  const all = resources.map((r) => (r === resource ? updated : r));
  updateJson(tree, `${root}/package.json`, (json: { opkit: { resources: ApiResource[] } }) => {
    json.opkit.resources = all;
    return json;
  });
  writeProjectIndex(tree, root, schema.project, all);
  enableWebhookConfig(tree, root, packageName, all);
  enableWebhooksInManager(tree, `${root}/config/manager/manager.yaml`);

  const hubSample = `${root}/config/samples/${sampleFile(resource)}.yaml`;
  tree.write(
    `${root}/config/samples/${sampleFile(resource, version)}.yaml`,
    read(hubSample).replace(
      `apiVersion: ${resource.group}/${hub}`,
      `apiVersion: ${resource.group}/${version}`,
    ),
  );
  serveVersionInBaseCsv(
    tree,
    `${root}/config/manifests/bases/${packageName}.clusterserviceversion.yaml`,
    updated,
    version,
  );

  const format = formatChangedFiles(tree);
  const manifests = schema.skipManifests ? undefined : runManifests(tree, root, schema.project);
  return () => {
    format();
    manifests?.();
  };
}

/**
 * The base CSV for a kind served at `version` too: its owned-CRD entry for the storage version copied for
 * `version` (the scorecard checks each sample against the entry of its own version), and AllNamespaces as the
 * only install mode, which OLM requires of an operator whose CRDs convert through its webhook.
 */
function serveVersionInBaseCsv(tree: Tree, path: string, r: ApiResource, version: string): void {
  const text = tree.read(path, 'utf-8');
  if (text === null) throw new Error(`${path}: missing (the base CSV the bundle is generated from)`);
  const doc = parseDocument(text);
  const owned = doc.getIn(['spec', 'customresourcedefinitions', 'owned']);
  const name = `${r.plural}.${r.group}`;
  if (isSeq(owned)) {
    const storage = owned.items.find(
      (item) => isMap(item) && item.get('name') === name && item.get('version') === r.version,
    );
    if (
      isMap(storage) &&
      !owned.items.some((i) => isMap(i) && i.get('name') === name && i.get('version') === version)
    ) {
      const copy = doc.createNode({ ...storage.toJSON(), version });
      owned.add(copy);
    }
  }
  const modes = doc.getIn(['spec', 'installModes']);
  if (isSeq(modes)) {
    for (const mode of modes.items) {
      if (isMap(mode)) mode.set('supported', mode.get('type') === 'AllNamespaces');
    }
  }
  tree.write(path, doc.toString({ lineWidth: 0 }));
}

export default versionGenerator;
