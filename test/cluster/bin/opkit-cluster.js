#!/usr/bin/env node
// In the workspace it runs the TypeScript CLI from source: workspace packages resolve to their sources through
// the `@opkit/source` export condition, and tsx compiles on the fly, so `nx run cluster:up` needs no build
// step. Installed under node_modules, it runs the package's JavaScript build.
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { requireNode } from '@opkit/cli/bin/require-node.js';

requireNode('opkit-cluster', new URL('../package.json', import.meta.url));

const installed = realpathSync(fileURLToPath(import.meta.url))
  .split(/[\\/]/)
  .includes('node_modules');
const args = installed
  ? [fileURLToPath(new URL('../dist/cli.js', import.meta.url))]
  : [
      '--conditions=@opkit/source',
      '--import',
      'tsx',
      fileURLToPath(new URL('../src/cli.ts', import.meta.url)),
    ];
const child = spawn(process.execPath, [...args, ...process.argv.slice(2)], { stdio: 'inherit' });
// `serve` stops its cluster on SIGINT/SIGTERM: pass termination signals on.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : 15) : 1);
});
