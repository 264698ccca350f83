import { join } from 'node:path';
import { workspaceRoot } from '../released-data.js';
import { ensureWorkspaceBuilt } from '../workspace-build.js';

/** The packages whose builds the suites run (`opkit` and the libraries it loads) or pack. */
const PROJECTS = [
  { project: 'controller-runtime', directory: 'libs/controller-runtime' },
  { project: 'olm', directory: 'libs/olm' },
  { project: 'oci', directory: 'libs/oci' },
  { project: 'opkit', directory: 'tools/opkit' },
];

/**
 * Vitest global setup for suites that run the `opkit` command or pack the packages: they must run what users
 * run, the JavaScript build, and never a stale one. Under Nx the test target's `dependsOn` has built it
 * already; a bare `vitest run` builds it here (from Nx's cache when the sources have not changed).
 */
export default async function setup(): Promise<void> {
  await ensureWorkspaceBuilt(
    workspaceRoot,
    PROJECTS.map((p) => ({ project: p.project, directory: join(workspaceRoot, p.directory) })),
    { onProgress: (line) => process.stdout.write(`${line}\n`) },
  );
}
