// `nx g @opkit/nx:operator <name>`: a new operator project, as `kubebuilder init` and `operator-sdk init`
// scaffold one, in this workspace's layout.
import { join } from 'node:path';
import {
  type GeneratorCallback,
  generateFiles,
  getProjects,
  logger,
  offsetFromRoot,
  readJson,
  type Tree,
} from '@nx/devkit';
import { operatorNames } from '../../names.js';
import { pluginVersionOf } from '../../versions.js';
import { commented } from '../commented-commands.js';
import { formatChangedFiles } from '../format-files.js';
import { writeDeploymentConfig, writeProjectIndex } from '../project-index.js';
import { runManifests } from '../run-manifests.js';
import { dependencyVersion, isOpkitSourceWorkspace } from '../source-workspace.js';
import { operatorTargets } from './operator-targets.js';

export interface OperatorGeneratorSchema {
  readonly name: string;
  readonly directory?: string;
  readonly domain?: string;
  readonly image?: string;
  readonly channel?: string;
}

/**
 * The operator's package name, in the npm scope of the root package.json's name (`@acme/source` →
 * `@acme/<package>`), or unscoped when the root's name has none.
 */
function packageNameIn(tree: Tree, packageName: string): string {
  const name = readJson<{ name?: string }>(tree, 'package.json').name ?? '';
  return name.startsWith('@') && name.includes('/') ? `${name.split('/')[0]}/${packageName}` : packageName;
}

/** What to run after the operator generator: the install, a first kind unless it has one, the unit tests. */
export function nextSteps(install: string, project: string, hasKinds: boolean): string[] {
  return commented([
    [install, 'records the new workspace package in the lock file'],
    ...(hasKinds
      ? []
      : [[`npx nx g @opkit/nx:api <group>/<version>/<Kind> --project ${project}`, ''] as const]),
    [`npx nx run ${project}:test:unit`, 'then test:envtest, test:e2e (see its README)'],
  ]).split('\n');
}

export async function operatorGenerator(
  tree: Tree,
  schema: OperatorGeneratorSchema,
): Promise<GeneratorCallback> {
  const names = operatorNames(schema.name);
  const root = `${schema.directory ?? 'operators'}/${names.name}`;
  if (tree.exists(root)) throw new Error(`${root} exists already: choose another name or --directory`);
  if (getProjects(tree).has(names.name)) throw new Error(`a project named ${names.name} exists already`);
  const domain = schema.domain ?? 'example.com';
  const image = schema.image ?? `registry.example/${names.packageName}`;
  const channel = schema.channel ?? 'alpha';
  const offset = offsetFromRoot(root);
  generateFiles(tree, join(import.meta.dirname, 'files'), root, {
    ...names,
    commented,
    domain,
    image,
    channel,
    offset,
    // The operator's own metric names (recording rules): the package name in snake case.
    metricPrefix: names.packageName.replaceAll('-', '_'),
    propertyName: `${names.className.charAt(0).toLowerCase()}${names.className.slice(1)}`,
    tmpl: '',
  });

  const sourceWorkspace = isOpkitSourceWorkspace(tree);
  // The workspace's Node.js requirement: the new package promises what the others do.
  const { engines } = readJson<{ engines?: Record<string, string> }>(tree, 'package.json');
  const version = (name: string) => dependencyVersion(tree, name);
  const packageJson = {
    name: packageNameIn(tree, names.packageName),
    version: '0.1.0',
    private: true,
    type: 'module',
    description: `The ${names.displayName}, on @opkit/controller-runtime`,
    ...(engines ? { engines } : {}),
    // Never published nor consumed as built JavaScript (its image bundles `src/main.ts`): the sources are the
    // package.
    exports: { '.': './src/index.ts' },
    dependencies: {
      '@opkit/controller-runtime': version('@opkit/controller-runtime'),
      '@opkit/controller-tools': version('@opkit/controller-tools'),
      '@sinclair/typebox': pluginVersionOf('@sinclair/typebox'),
    },
    devDependencies: { '@opkit/test-cluster': version('@opkit/test-cluster'), yaml: pluginVersionOf('yaml') },
    nx: {
      name: names.name,
      tags: ['operator'],
      targets: operatorTargets({ packageName: names.packageName, sourceWorkspace }),
    },
    opkit: { package: names.packageName, channels: [channel], image, resources: [] },
  };
  tree.write(`${root}/package.json`, `${JSON.stringify(packageJson, null, 2)}\n`);
  writeProjectIndex(tree, root, names.name, []);
  writeDeploymentConfig(tree, root, names.packageName);

  // The catalog lists the operator's releases from the start; each new version is one more entry.
  const template = `catalog/templates/${names.packageName}.yaml`;
  if (tree.exists('catalog/templates') && !tree.exists(template)) {
    tree.write(
      template,
      `# The ${names.displayName}'s channels, written out (olm.template.basic): add each release here.
schema: olm.template.basic
entries:
  - schema: olm.package
    name: ${names.packageName}
    defaultChannel: ${channel}
  - schema: olm.channel
    package: ${names.packageName}
    name: ${channel}
    entries:
      - name: ${names.packageName}.v0.1.0
  - schema: olm.bundle
    image: bundles/${names.packageName}/0.1.0
`,
    );
  }

  const lockfileTool = 'tools/lockfile/complete-platform-packages.mjs';
  const install = tree.exists(lockfileTool) ? `npm install && node ${lockfileTool}` : 'npm install';
  const format = formatChangedFiles(tree);
  const manifests = runManifests(tree, root, names.name);
  return () => {
    format();
    manifests();
    // By now a kind may be in (the preset adds --api's before the callbacks run): then the api step is done.
    const kinds = readJson<{ opkit: { resources: unknown[] } }>(tree, `${root}/package.json`).opkit.resources;
    logger.info(
      [
        `${root}: the ${names.displayName} (OLM package ${names.packageName}).`,
        'Next:',
        ...nextSteps(install, names.name, kinds.length > 0).map((line) => `  ${line}`),
      ].join('\n'),
    );
  };
}

export default operatorGenerator;
