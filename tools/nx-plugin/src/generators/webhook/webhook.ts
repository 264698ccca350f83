// `nx g @opkit/nx:webhook --project <operator> --kind <Kind>`: admission webhooks for a kind, as
// `kubebuilder create webhook --defaulting --programmatic-validation` scaffolds them.
import { join } from 'node:path';
import { type GeneratorCallback, generateFiles, type Tree, updateJson } from '@nx/devkit';
import { kindNames, operatorNames } from '../../names.js';
import { formatChangedFiles } from '../format-files.js';
import { enableWebhooksInManager } from '../manager-deployment.js';
import { readOperatorProject } from '../operator-project.js';
import { type ApiResource, enableWebhookConfig, writeProjectIndex } from '../project-index.js';
import { runManifests } from '../run-manifests.js';

export interface WebhookGeneratorSchema {
  readonly project: string;
  readonly kind: string;
  readonly defaulting?: boolean;
  readonly validation?: boolean;
  readonly skipManifests?: boolean;
}

export async function webhookGenerator(
  tree: Tree,
  schema: WebhookGeneratorSchema,
): Promise<GeneratorCallback> {
  const defaulting = schema.defaulting ?? true;
  const validation = schema.validation ?? true;
  if (!defaulting && !validation) throw new Error('nothing to scaffold: keep --defaulting or --validation');
  const { root, packageName, resources } = readOperatorProject(tree, schema.project);
  const resource = resources.find((r) => r.kind === schema.kind);
  if (!resource) {
    const known = resources.map((r) => r.kind).join(', ') || 'none yet: add one with @opkit/nx:api';
    throw new Error(`${schema.project} has no kind ${JSON.stringify(schema.kind)} (its kinds: ${known})`);
  }
  if (resource.webhooks)
    throw new Error(`${schema.kind} has webhooks already (src/api/${resource.version}/)`);
  generateFiles(tree, join(import.meta.dirname, 'files'), root, {
    ...kindNames(resource.kind, resource.plural),
    ...operatorNames(schema.project),
    packageName,
    project: schema.project,
    version: resource.version,
    defaulting,
    validation,
    spokes: [],
    tmpl: '',
  });
  const all = resources.map((r) => (r === resource ? { ...r, webhooks: { defaulting, validation } } : r));
  updateJson(tree, `${root}/package.json`, (json: { opkit: { resources: ApiResource[] } }) => {
    json.opkit.resources = all;
    return json;
  });
  writeProjectIndex(tree, root, schema.project, all);
  enableWebhookConfig(tree, root, packageName);
  enableWebhooksInManager(tree, `${root}/config/manager/manager.yaml`);
  const format = formatChangedFiles(tree);
  const manifests = schema.skipManifests ? undefined : runManifests(root, schema.project);
  return () => {
    format();
    manifests?.();
  };
}

export default webhookGenerator;
