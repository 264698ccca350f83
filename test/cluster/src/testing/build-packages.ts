import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { workspaceRoot } from '../released-data.js';

/** Nx's command line, as the workspace installed it. */
function nxBin(): string {
  const manifest = createRequire(join(workspaceRoot, 'package.json')).resolve('nx/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: { nx: string } };
  return join(dirname(manifest), bin.nx);
}

/**
 * Vitest global setup for suites that run the `opkit` command or pack the packages: they must run what users
 * run, the JavaScript build, and never a stale one. Under Nx the test target's `dependsOn` has built it
 * already; a bare `vitest run` builds it here (`nx run-many -t build`, from Nx's cache when the sources have
 * not changed).
 */
export default function setup(): void {
  if (process.env.NX_TASK_TARGET_PROJECT !== undefined) return;
  execFileSync(
    process.execPath,
    [
      nxBin(),
      'run-many',
      '-t',
      'build',
      '-p',
      'controller-runtime',
      'olm',
      'oci',
      'opkit',
      '--outputStyle=static',
    ],
    { cwd: workspaceRoot, stdio: ['ignore', 'inherit', 'inherit'] },
  );
}
