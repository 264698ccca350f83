#!/usr/bin/env node
// Runs the TypeScript CLI from source: workspace packages resolve to their sources through the
// `@opkit/source` export condition, and tsx compiles on the fly, so `nx run cluster:up` needs no build step.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { requireNode } from '@opkit/cli/bin/require-node.js';

requireNode('opkit-cluster', new URL('../package.json', import.meta.url));

const main = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const child = spawn(
  process.execPath,
  ['--conditions=@opkit/source', '--import', 'tsx', main, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
// `serve` stops its cluster on SIGINT/SIGTERM: pass termination signals on.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : 15) : 1);
});
