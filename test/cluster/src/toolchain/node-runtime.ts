import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { minimumNode } from '@opkit/cli/bin/require-node.js';
import { workspaceFile, workspaceRoot } from '../released-data.js';
import { ensureComponents } from './build.js';
import type { ComponentRecipe } from './recipes.js';

const run = promisify(execFile);

/**
 * Node.js `version` from the npm registry's `node` package, the way the workspace gets its own Node 24: npm
 * installs it in a scratch project and the binary is kept in the component cache (`bin/node-v<version>/node`).
 */
function nodeRecipe(version: string): ComponentRecipe {
  return {
    name: 'node',
    version,
    files: ['node'],
    async build(ctx) {
      writeFileSync(join(ctx.workDir, 'package.json'), '{ "private": true }\n');
      await run('npm', ['install', '--no-audit', '--no-fund', '--no-save', `node@${version}`], {
        cwd: ctx.workDir,
        maxBuffer: 16 * 1024 * 1024,
      });
      const binary = join(ctx.outDir, 'node');
      copyFileSync(join(ctx.workDir, 'node_modules', 'node', 'bin', 'node'), binary);
      chmodSync(binary, 0o755);
      const { stdout } = await run(binary, ['--version']);
      if (stdout.trim() !== `v${version}`) {
        throw new Error(`npm package node@${version} installed a Node that reports ${stdout.trim()}`);
      }
    },
  };
}

/**
 * The oldest Node.js the workspace's `engines.node` allows (`>=22.19` gives 22.19.0), installed once into the
 * component cache: the CLI's tests run on it to show that what `engines` promises holds. Returns its path.
 */
export async function oldestSupportedNode(): Promise<{ readonly version: string; readonly path: string }> {
  const version = minimumNode(pathToFileURL(workspaceFile(workspaceRoot, 'package.json'))).join('.');
  const { node } = await ensureComponents([nodeRecipe(version)]);
  if (!node) throw new Error(`node ${version} is not in the component cache after its build`);
  return { version, path: join(node.dir, 'node') };
}
