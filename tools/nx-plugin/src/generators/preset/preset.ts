// `nx g @opkit/nx:preset`: a new opkit workspace, the files `npm create opkit` (and `create-nx-workspace
// --preset=@opkit/nx`) start from: the root package.json's lists, nx.json, the TypeScript and Biome settings,
// the CI entry point, a README, the bundle and catalog projects; with --operator the first operator project,
// and with --api its first kind.
import {
  type GeneratorCallback,
  installPackagesTask,
  logger,
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
import { isNxDefault, nxJsonSettings, TEST_SCRIPTS, workspaceFiles } from './workspace-files.js';

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
      ...TEST_SCRIPTS,
    },
  });
  addOperatorsWorkspace(tree);
  // Its own install task is left out: the one below runs once every file is written.
  addWorkspaceDependencies(tree);
  // A file the workspace has is its own, unless it is still create-nx-workspace's default.
  const kept: string[] = [];
  for (const [path, file] of Object.entries(workspaceFiles({ name, domain }))) {
    const current = tree.read(path, 'utf-8');
    if (current !== null && !isNxDefault(path, current)) kept.push(path);
    else tree.write(path, file.text, file.executable ? { mode: '755' } : undefined);
  }
  if (kept.length > 0) {
    logger.warn(
      `kept the workspace's own ${kept.join(', ')}: the preset starts a new workspace; ` +
        'in an existing one, `nx g @opkit/nx:init` adds opkit and leaves its files as they are',
    );
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
