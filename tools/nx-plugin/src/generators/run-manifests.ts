import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type GeneratorCallback, logger, type Tree } from '@nx/devkit';

/**
 * After the files are written: the project's manifests command, which generates config/crd/bases and the
 * RBAC roles from the TypeScript sources. It is the command of the project's `manifests` target, read from its
 * package.json, so a generator runs exactly what `nx run <project>:manifests` runs in this workspace.
 */
export function runManifests(tree: Tree, root: string, project: string): GeneratorCallback {
  return () => {
    logger.info(`running the manifests of ${project} (nx run ${project}:manifests)`);
    const dir = join(tree.root, root);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      nx?: { targets?: { manifests?: { options?: { command?: string } } } };
    };
    const command = pkg.nx?.targets?.manifests?.options?.command;
    if (!command) throw new Error(`${root}/package.json: no manifests target with a command`);
    // Run as Nx runs it: a shell, with the workspace's node_modules/.bin first on the PATH.
    const bin = join(tree.root, 'node_modules', '.bin');
    execFileSync('sh', ['-c', command], {
      cwd: dir,
      stdio: 'inherit',
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
    });
  };
}
