#!/usr/bin/env node
// Runs the TypeScript CLI from source: workspace packages resolve to their sources through the
// `@opkit/source` export condition, and tsx compiles on the fly.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const child = spawn(
  process.execPath,
  ['--conditions=@opkit/source', '--import', 'tsx', main, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
// Long-running commands (catalog serve) shut down gracefully: pass termination signals on to the CLI.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : 15) : 1);
});
