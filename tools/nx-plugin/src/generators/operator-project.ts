import { getProjects, readJson, type Tree } from '@nx/devkit';
import type { ApiResource } from './project-index.js';

/** An operator project the operator generator scaffolded: where it is, its OLM package and its APIs. */
export interface OperatorProject {
  readonly root: string;
  readonly packageName: string;
  readonly resources: readonly ApiResource[];
}

/**
 * The project named `name`, refused unless the operator generator made it (its package.json has `opkit` and
 * it has src/controller/index.ts, the files the api and webhook generators rewrite).
 */
export function readOperatorProject(tree: Tree, name: string): OperatorProject {
  const project = getProjects(tree).get(name);
  if (!project) throw new Error(`no project named ${JSON.stringify(name)} in the workspace`);
  const { root } = project;
  const pkg = readJson<{ opkit?: { package: string; resources?: ApiResource[] } }>(
    tree,
    `${root}/package.json`,
  );
  if (!pkg.opkit || !tree.exists(`${root}/src/controller/index.ts`)) {
    throw new Error(
      `${name} is not an operator project scaffolded by @opkit/nx:operator (it needs package.json "opkit" and src/controller/index.ts)`,
    );
  }
  return { root, packageName: pkg.opkit.package, resources: pkg.opkit.resources ?? [] };
}
