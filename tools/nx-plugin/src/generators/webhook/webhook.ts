// `nx g @opkit/nx:webhook --project <operator> --kind <Kind>`: admission webhooks for a kind, as
// `kubebuilder create webhook --defaulting --programmatic-validation` scaffolds them. A kind that has some of
// its webhooks already (from an earlier run, or the conversion the version generator adds) gets only the
// missing ones; asking for what it has changes nothing.
import { type GeneratorCallback, logger, type Tree, updateJson } from '@nx/devkit';
import { kindNames, operatorNames } from '../../names.js';
import { formatChangedFiles } from '../format-files.js';
import { enableWebhooksInManager } from '../manager-deployment.js';
import { readOperatorProject } from '../operator-project.js';
import { type ApiResource, enableWebhookConfig, writeProjectIndex } from '../project-index.js';
import { runManifests } from '../run-manifests.js';
import { addAdmissionWebhooks, addTestCases } from '../source-edits.js';
import {
  type AdmissionWebhooks,
  admissionPieces,
  clusterCases,
  clusterSpec,
  clusterSuite,
  declarationName,
  RUNTIME_WEBHOOK,
  runtimeImports,
  unitCases,
  unitImports,
  unitSpec,
  unitSuite,
  type WebhookNames,
  webhooksModule,
} from './webhook-sources.js';

export interface WebhookGeneratorSchema {
  readonly project: string;
  readonly kind: string;
  /** @default true, unless only `conversion` is asked for */
  readonly defaulting?: boolean;
  /** @default true, unless only `conversion` is asked for */
  readonly validation?: boolean;
  /** The conversion webhook, which the version generator adds with a kind's second version. */
  readonly conversion?: boolean;
  readonly skipManifests?: boolean;
}

/** `defaulting and validation webhooks`, `conversion webhook`, … for messages. */
function describeWebhooks(w: ApiResource['webhooks']): string {
  const names = [
    ...(w?.defaulting ? ['defaulting'] : []),
    ...(w?.validation ? ['validation'] : []),
    ...(w?.conversion ? ['conversion'] : []),
  ];
  if (names.length === 0) return 'no webhooks';
  return `${names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]} webhook${names.length > 1 ? 's' : ''}`;
}

export async function webhookGenerator(
  tree: Tree,
  schema: WebhookGeneratorSchema,
): Promise<GeneratorCallback> {
  // `--conversion` alone asks for no admission webhook, as `kubebuilder create webhook --conversion` does.
  const conversionAsked = schema.conversion === true;
  const asked: AdmissionWebhooks = {
    defaulting: schema.defaulting ?? !conversionAsked,
    validation: schema.validation ?? !conversionAsked,
  };
  if (!asked.defaulting && !asked.validation && !schema.conversion) {
    throw new Error('nothing to scaffold: keep --defaulting or --validation, or ask for --conversion');
  }
  const { root, packageName, resources } = readOperatorProject(tree, schema.project);
  const resource = resources.find((r) => r.kind === schema.kind);
  if (!resource) {
    const known = resources.map((r) => r.kind).join(', ') || 'none yet: add one with @opkit/nx:api';
    throw new Error(`${schema.project} has no kind ${JSON.stringify(schema.kind)} (its kinds: ${known})`);
  }
  if (schema.conversion && !resource.otherVersions?.length) {
    throw new Error(
      `${schema.kind} is served at ${resource.version} only, so there is nothing to convert: nx g @opkit/nx:version <version> --project ${schema.project} --kind ${schema.kind} adds a version with its conversion webhook`,
    );
  }
  const names: WebhookNames & { className: string } = {
    ...kindNames(resource.kind, resource.plural),
    project: schema.project,
    className: operatorNames(schema.project).className,
  };
  const has = resource.webhooks;
  const missing: AdmissionWebhooks = {
    defaulting: asked.defaulting && !has?.defaulting,
    validation: asked.validation && !has?.validation,
  };
  const webhooksPath = `${root}/src/api/${resource.version}/${names.fileName}-webhooks.ts`;
  if (!missing.defaulting && !missing.validation) {
    logger.warn(
      `${schema.kind} has ${describeWebhooks(has)} already (${webhooksPath.slice(root.length + 1)}): nothing changed`,
    );
    return () => {};
  }

  const existing = tree.read(webhooksPath, 'utf-8');
  tree.write(
    webhooksPath,
    existing === null
      ? webhooksModule(names, { ...missing, hub: resource.version, spokes: [] })
      : addAdmissionWebhooks(webhooksPath, existing, {
          declaration: declarationName(names),
          runtimeModule: RUNTIME_WEBHOOK,
          runtimeImports: runtimeImports(missing),
          webhooks: admissionPieces(names, missing),
        }),
  );
  const unitPath = `${root}/src/api/${resource.version}/${names.fileName}-webhooks.spec.ts`;
  const unit = tree.read(unitPath, 'utf-8');
  tree.write(
    unitPath,
    unit === null
      ? unitSpec(names, missing)
      : addTestCases(unitPath, unit, {
          suite: unitSuite(names),
          cases: unitCases(names, missing),
          module: `./${names.fileName}-webhooks.js`,
          imports: unitImports(names, missing),
        }),
  );
  const clusterPath = `${root}/test/${names.fileName}-webhooks.spec.ts`;
  const cluster = tree.read(clusterPath, 'utf-8');
  tree.write(
    clusterPath,
    cluster === null
      ? clusterSpec(names, missing)
      : addTestCases(clusterPath, cluster, {
          suite: clusterSuite(names),
          cases: clusterCases(names, missing),
        }),
  );

  const webhooks = {
    defaulting: Boolean(has?.defaulting) || missing.defaulting,
    validation: Boolean(has?.validation) || missing.validation,
    ...(has?.conversion ? { conversion: true } : {}),
  };
  const all = resources.map((r) => (r === resource ? { ...r, webhooks } : r));
  updateJson(tree, `${root}/package.json`, (json: { opkit: { resources: ApiResource[] } }) => {
    json.opkit.resources = all;
    return json;
  });
  writeProjectIndex(tree, root, schema.project, all);
  enableWebhookConfig(tree, root, packageName, all);
  enableWebhooksInManager(tree, `${root}/config/manager/manager.yaml`);
  const format = formatChangedFiles(tree);
  const manifests = schema.skipManifests ? undefined : runManifests(tree, root, schema.project);
  return () => {
    format();
    manifests?.();
  };
}

export default webhookGenerator;
