// Whether the generators run in opkit's own repository (the packages are workspace sources there) or in a
// workspace that installs the published packages (`npm create opkit`, `nx add @opkit/nx`).
import { getProjects, type Tree } from '@nx/devkit';
import { pluginVersionOf } from '../versions.js';

/**
 * True in opkit's repository: the `opkit` command is a workspace project (tools/opkit) to build first, the
 * packages resolve to their TypeScript through the `@opkit/source` condition, and depend on each other as `*`.
 */
export function isOpkitSourceWorkspace(tree: Tree): boolean {
  return getProjects(tree).get('opkit')?.root === 'tools/opkit';
}

/**
 * The version an operator project depends on `name` at: `*` for a package of this workspace (npm links it),
 * else the plugin's version, exact for the opkit packages.
 */
export function dependencyVersion(tree: Tree, name: string): string {
  const local = [...getProjects(tree).values()].some((p) => {
    const path = `${p.root}/package.json`;
    if (!tree.exists(path)) return false;
    return (JSON.parse(tree.read(path, 'utf-8') ?? '{}') as { name?: string }).name === name;
  });
  return local ? '*' : pluginVersionOf(name);
}
