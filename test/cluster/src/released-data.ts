import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';

/** Whether this module runs from an installed copy of the kit (under node_modules), not from this repository. */
export function isInstalled(moduleDir: string): boolean {
  return realpathSync(moduleDir).split(sep).includes('node_modules');
}

/** The nearest directory at or above `start` that holds a package-lock.json or an nx.json; else `start`. */
export function nearestWorkspace(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package-lock.json')) || existsSync(join(dir, 'nx.json'))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

/**
 * The root of the workspace the kit works for: this repository when the kit runs from its sources or build here
 * (it lives at `test/cluster`), else the workspace of the current directory, where the installed kit runs.
 */
export const workspaceRoot = isInstalled(import.meta.dirname)
  ? nearestWorkspace(process.cwd())
  : join(import.meta.dirname, '..', '..', '..');

/** Thrown when a file the kit reads from the workspace is not there. */
export class WorkspaceFileError extends Error {
  override readonly name = 'WorkspaceFileError';
}

/** `<root>/<name>`, or a one-line error naming the file when it is missing. */
export function workspaceFile(root: string, name: string): string {
  const path = join(root, name);
  if (!existsSync(path)) {
    throw new WorkspaceFileError(
      `${path} not found: ${root} is not an npm workspace root (run from the workspace, or pass workspaceRoot)`,
    );
  }
  return path;
}

/**
 * The released data, which is in no package: the registry+v1 bundles (`bundles/<package>/<version>`, the Nx
 * project `bundle`) and the file-based catalog (`catalog/configs`, built from `catalog/templates`, the Nx
 * project `catalog`). The tests that check the CLI against them find them here.
 */
export const releasedData = {
  bundles: join(workspaceRoot, 'bundles'),
  bundle: (pkg: string, version: string): string => join(workspaceRoot, 'bundles', pkg, version),
  catalogConfigs: join(workspaceRoot, 'catalog', 'configs'),
  catalogTemplates: join(workspaceRoot, 'catalog', 'templates'),
} as const;
