import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

/** A workspace project whose `build` target writes `<directory>/dist`. */
export interface BuiltProject {
  /** The Nx project name. */
  readonly project: string;
  /** The package's directory. */
  readonly directory: string;
}

/** Thrown when the projects cannot be built, or an Nx task runs without the builds its `dependsOn` names. */
export class WorkspaceBuildError extends Error {
  override readonly name = 'WorkspaceBuildError';
}

/**
 * Makes sure the projects' builds are there for a test that runs or packs them.
 *
 * Inside an Nx task (the test target), the target's `dependsOn` has built them, and they are only checked: a
 * second `nx run-many -t build` here would put each project's `dist` back from Nx's cache, and Nx without its
 * daemon does that by deleting the directory and copying it again, under any other test that runs the
 * `opkit` command from it at that moment (`npm test` runs two lanes side by side). Outside Nx (a bare `vitest
 * run`) they are built, from Nx's cache when the sources have not changed.
 */
export async function ensureWorkspaceBuilt(
  root: string,
  projects: readonly BuiltProject[],
  options: { readonly env?: NodeJS.ProcessEnv; readonly onProgress?: (line: string) => void } = {},
): Promise<void> {
  const { env = process.env, onProgress } = options;
  if (env.NX_TASK_TARGET_PROJECT !== undefined) {
    const missing = projects.filter((p) => !existsSync(join(p.directory, 'dist')));
    if (missing.length > 0) {
      const where = missing.map((p) => `${p.project} (${relative(root, join(p.directory, 'dist'))})`);
      throw new WorkspaceBuildError(
        `${env.NX_TASK_TARGET_PROJECT}: no build of ${where.join(', ')}; add their build to the test target's ` +
          'dependsOn, or build them first (nx run-many -t build)',
      );
    }
    return;
  }
  const names = projects.map((p) => p.project);
  onProgress?.(`building ${names.join(', ')} (nx run-many -t build)`);
  try {
    const nx = createRequire(join(root, 'package.json')).resolve('nx/bin/nx.js');
    await promisify(execFile)(
      process.execPath,
      [nx, 'run-many', '-t', 'build', '-p', ...names, '--outputStyle=static'],
      {
        cwd: root,
        env: { ...env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' },
        maxBuffer: 64 * 1024 * 1024,
      },
    );
  } catch (error) {
    const { stdout = '', stderr = '', message } = error as Error & { stdout?: string; stderr?: string };
    const said = `${stdout}${stderr}`.trim() || message;
    throw new WorkspaceBuildError(
      `building ${names.join(', ')} failed:\n${said.split('\n').slice(-20).join('\n')}`,
      {
        cause: error,
      },
    );
  }
}
