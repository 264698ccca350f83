// `nx add @opkit/nx` (which runs this): opkit in an existing Nx workspace. The root package.json gets the
// opkit packages and tools at this plugin's versions (a package the workspace has already keeps its version)
// and `operators/*` as a workspace, and the workspace gets the bundle and catalog projects unless it has them.
import { type GeneratorCallback, installPackagesTask, type Tree } from '@nx/devkit';
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
  return () => {
    if (!schema.skipInstall) installPackagesTask(tree);
  };
}

export default initGenerator;
