#!/usr/bin/env node
// The `opkit` command. It runs the CLI's JavaScript build (`dist/`, what the npm package ships; in the
// repository `nx run opkit:build` writes it, and every Nx target that runs the CLI builds it first) in this
// process: no second process, no compiler at start-up.
//
// In a checkout without a build, or with OPKIT_FROM_SOURCE=1, it runs the TypeScript sources instead: tsx
// compiles them on the fly in a child process, and workspace packages resolve to their sources through the
// `@opkit/source` export condition. Slower to start, but no build step between a change and a run.
import { existsSync } from 'node:fs';

const built = new URL('../dist/main.js', import.meta.url);
const sources = new URL('../src/main.ts', import.meta.url);

if (process.env.OPKIT_FROM_SOURCE !== '1' && existsSync(built)) {
  await import(built.href);
} else if (existsSync(sources)) {
  const { spawn } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const child = spawn(
    process.execPath,
    ['--conditions=@opkit/source', '--import', 'tsx', fileURLToPath(sources), ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  // Long-running commands (catalog serve) shut down gracefully: pass termination signals on to the CLI.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : 15) : 1);
  });
} else {
  process.stderr.write('opkit: this installation has neither its build (dist/main.js) nor its sources\n');
  process.exitCode = 1;
}
