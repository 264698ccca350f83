// `nx add @opkit/nx` (which runs this): opkit in an existing Nx workspace. The root package.json gets the
// opkit packages and tools at this plugin's versions (a package the workspace has already keeps its version)
// and `operators/*` as a workspace, and the workspace gets the bundle and catalog projects unless it has them.
// What an operator project builds on is added where the workspace has none of its own: nx.json's lint,
// typecheck and test target defaults, tsconfig.base.json, biome.json and the root test scripts.
import { type GeneratorCallback, installPackagesTask, readJson, type Tree, writeJson } from '@nx/devkit';
import { mergeNxJsonSettings, TEST_SCRIPTS, workspaceFiles } from '../preset/workspace-files.js';
import {
  addBundleAndCatalogProjects,
  addOperatorsWorkspace,
  addWorkspaceDependencies,
} from '../workspace-pieces.js';

export interface InitGeneratorSchema {
  readonly skipInstall?: boolean;
}

export async function initGenerator(tree: Tree, schema: InitGeneratorSchema): Promise<GeneratorCallback> {
  addWorkspaceDependencies(tree);
  addOperatorsWorkspace(tree);
  addBundleAndCatalogProjects(tree);
  const nxJson = tree.exists('nx.json') ? readJson<Record<string, unknown>>(tree, 'nx.json') : {};
  writeJson(tree, 'nx.json', mergeNxJsonSettings(nxJson, 'example.com'));
  const pkg = readJson<{ name?: string; scripts?: Record<string, string> }>(tree, 'package.json');
  const files = workspaceFiles({ name: pkg.name ?? 'operators', domain: 'example.com' });
  for (const path of ['tsconfig.base.json', 'biome.json'] as const) {
    if (!tree.exists(path)) tree.write(path, files[path]?.text ?? '');
  }
  writeJson(tree, 'package.json', { ...pkg, scripts: { ...TEST_SCRIPTS, ...pkg.scripts } });
  return () => {
    if (!schema.skipInstall) installPackagesTask(tree);
  };
}

export default initGenerator;
