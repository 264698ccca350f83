import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type GeneratorCallback, logger, type Tree } from '@nx/devkit';

/**
 * After the files are written: the workspace's formatter and import sorter (Biome, as `npm run format` runs
 * it) over the TypeScript, JSON and Markdown files this generator wrote, so they pass `lint` however long the names
 * are. Without Biome in the workspace the files stay as generated.
 */
export function formatChangedFiles(tree: Tree): GeneratorCallback {
  const files = tree
    .listChanges()
    .filter((c) => c.type !== 'DELETE' && /\.(ts|json|md)$/.test(c.path))
    .map((c) => c.path);
  return () => {
    const biome = join(tree.root, 'node_modules', '.bin', 'biome');
    if (files.length === 0 || !existsSync(biome)) return;
    logger.info(`formatting ${files.length} files (biome check --write)`);
    execFileSync(biome, ['check', '--write', '--no-errors-on-unmatched', ...files], {
      cwd: tree.root,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  };
}
