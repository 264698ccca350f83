import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { type GeneratorCallback, logger, type Tree } from '@nx/devkit';

/**
 * After the files are written: the project's manifests command, which generates config/crd/bases and the
 * RBAC roles from the TypeScript sources (the same command as `nx run <project>:manifests`), in the workspace
 * the generator ran on.
 */
export function runManifests(tree: Tree, root: string, project: string): GeneratorCallback {
  return () => {
    logger.info(`running the manifests of ${project} (nx run ${project}:manifests)`);
    execFileSync(
      process.execPath,
      ['--conditions=@opkit/source', '--import', 'tsx', 'src/manifests/generate.ts'],
      { cwd: join(tree.root, root), stdio: 'inherit' },
    );
  };
}
