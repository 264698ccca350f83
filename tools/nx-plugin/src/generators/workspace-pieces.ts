// The parts of a workspace that the preset (a new workspace) and init (`nx add @opkit/nx` into an existing
// one) both write: the dependency lists, and the `bundle` and `catalog` projects that turn every operator into
// OLM bundles and a file-based catalog with the `opkit` command.
import { addDependenciesToPackageJson, type GeneratorCallback, type Tree, updateJson } from '@nx/devkit';
import { workspaceDependencies } from '../versions.js';

/**
 * The catalog image's base: the opkit command's own default base image (DEFAULT_BASE_IMAGE of its
 * image-defaults), written out because the plugin does not load the command; a unit test checks the two agree.
 */
export const CATALOG_BASE_IMAGE = 'gcr.io/distroless/nodejs24-debian12:nonroot';

/** The operator projects' folder, a workspace glob of the root package.json. */
export const OPERATORS_DIRECTORY = 'operators';

/** Adds the plugin's dependencies to the root package.json (an existing version of a package is kept). */
export function addWorkspaceDependencies(tree: Tree): GeneratorCallback {
  const { dependencies, devDependencies } = workspaceDependencies();
  return addDependenciesToPackageJson(tree, dependencies, devDependencies, 'package.json', true);
}

/** Lists `operators/*` in the root package.json's workspaces, so each operator is an npm and an Nx project. */
export function addOperatorsWorkspace(tree: Tree): void {
  updateJson(tree, 'package.json', (json: { workspaces?: string[] }) => {
    const glob = `${OPERATORS_DIRECTORY}/*`;
    const workspaces = json.workspaces ?? [];
    if (!workspaces.includes(glob)) json.workspaces = [...workspaces, glob];
    return json;
  });
}

const bundleProject = {
  $schema: '../node_modules/nx/schemas/project-schema.json',
  name: 'bundle',
  targets: {
    build: {
      executor: 'nx:run-commands',
      // Each operator's config/ first, from its TypeScript sources.
      dependsOn: [{ projects: ['tag:operator'], target: 'manifests' }],
      cache: false,
      options: {
        command: `opkit bundle build-all --operators ${OPERATORS_DIRECTORY} --bundles bundles --images dist/images`,
        cwd: '{workspaceRoot}',
      },
    },
    push: {
      executor: 'nx:run-commands',
      dependsOn: ['build'],
      cache: false,
      options: {
        command: 'opkit bundle push --images dist/images',
        cwd: '{workspaceRoot}',
        forwardAllArgs: true,
      },
    },
  },
};

const catalogProject = {
  $schema: '../node_modules/nx/schemas/project-schema.json',
  name: 'catalog',
  targets: {
    build: {
      executor: 'nx:run-commands',
      dependsOn: ['bundle:build'],
      cache: false,
      options: {
        commands: [
          {
            command: `opkit catalog build --template catalog/templates/*.yaml --bundles bundles --operators ${OPERATORS_DIRECTORY} --out catalog/configs`,
            forwardAllArgs: false,
          },
          {
            command: `opkit catalog image catalog/configs --layout dist/images/catalog --tag latest --base ${CATALOG_BASE_IMAGE} --inline-bundles`,
            forwardAllArgs: true,
          },
        ],
        parallel: false,
        cwd: '{workspaceRoot}',
      },
    },
    push: {
      executor: 'nx:run-commands',
      cache: false,
      options: {
        command: 'opkit image push dist/images/catalog',
        cwd: '{workspaceRoot}',
        forwardAllArgs: true,
      },
    },
  },
};

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/**
 * bundles/ (project `bundle`: every operator's current bundle in bundles/<package>/<version>/, validated and
 * imaged) and catalog/ (project `catalog`: catalog/templates/*.yaml rendered to catalog/configs/ and imaged),
 * each unless the workspace has it.
 */
export function addBundleAndCatalogProjects(tree: Tree): void {
  if (!tree.exists('bundles/project.json')) tree.write('bundles/project.json', json(bundleProject));
  if (!tree.exists('catalog/project.json')) tree.write('catalog/project.json', json(catalogProject));
  // The operator generator adds each operator's template here.
  if (tree.children('catalog/templates').length === 0) tree.write('catalog/templates/.gitkeep', '');
}
