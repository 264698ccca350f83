// `nx g @opkit/nx:preset`: a new opkit workspace, the files `npm create opkit` (and `create-nx-workspace
// --preset=@opkit/nx`) start from: the root package.json's lists, nx.json, the TypeScript and Biome settings,
// the CI entry point, a README, the bundle and catalog projects; with --operator the first operator project,
// and with --api its first kind.
import {
  type GeneratorCallback,
  installPackagesTask,
  readJson,
  runTasksInSerial,
  type Tree,
  writeJson,
} from '@nx/devkit';
import { operatorNames } from '../../names.js';
import { NODE_ENGINES } from '../../versions.js';
import { apiGenerator } from '../api/api.js';
import { formatChangedFiles } from '../format-files.js';
import { operatorGenerator } from '../operator/operator.js';
import {
  addBundleAndCatalogProjects,
  addOperatorsWorkspace,
  addWorkspaceDependencies,
  OPERATORS_DIRECTORY,
} from '../workspace-pieces.js';
import { nxJsonSettings, workspaceFiles } from './workspace-files.js';

export interface PresetGeneratorSchema {
  /** The workspace's name (create-nx-workspace passes it); default: the root package.json's name. */
  readonly name?: string;
  readonly operator?: string;
  readonly api?: string;
  readonly domain?: string;
  /** Leave `npm install` to the caller (create-opkit installs itself). */
  readonly skipInstall?: boolean;
}

export async function presetGenerator(tree: Tree, schema: PresetGeneratorSchema): Promise<GeneratorCallback> {
  if (schema.api && !schema.operator)
    throw new Error('--api needs --operator: the operator the kind goes in');
  const domain = schema.domain ?? 'example.com';
  const existing = tree.exists('package.json') ? readJson<{ name?: string }>(tree, 'package.json') : {};
  const name = schema.name ?? existing.name ?? 'operators';
  writeJson(tree, 'package.json', {
    name,
    version: '0.0.0',
    private: true,
    type: 'module',
    ...existing,
    engines: NODE_ENGINES,
    scripts: {
      ...(existing as { scripts?: Record<string, string> }).scripts,
      test: 'nx run-many -t lint typecheck test -c unit',
      'test:envtest': 'nx run-many -t test -c envtest',
      'test:e2e': 'nx run-many -t test -c e2e',
    },
  });
  addOperatorsWorkspace(tree);
  // Its own install task is left out: the one below runs once every file is written.
  addWorkspaceDependencies(tree);
  for (const [path, file] of Object.entries(workspaceFiles({ name, domain }))) {
    tree.write(path, file.text, file.executable ? { mode: '755' } : undefined);
  }
  const nxJson = tree.exists('nx.json') ? readJson<Record<string, unknown>>(tree, 'nx.json') : {};
  writeJson(tree, 'nx.json', { ...nxJson, ...nxJsonSettings(domain) });
  addBundleAndCatalogProjects(tree);

  // One install once the files are on disk: the tools, and the new operator package in the lock file.
  const tasks: GeneratorCallback[] = schema.skipInstall ? [] : [() => installPackagesTask(tree, true)];
  if (schema.operator) {
    tasks.push(
      await operatorGenerator(tree, { name: schema.operator, directory: OPERATORS_DIRECTORY, domain }),
    );
    if (schema.api) {
      tasks.push(await apiGenerator(tree, { api: schema.api, project: operatorNames(schema.operator).name }));
    }
  }
  // Biome's formatting of the root files too (README tables), once Biome is installed.
  tasks.push(formatChangedFiles(tree));
  return runTasksInSerial(...tasks);
}

export default presetGenerator;
