#!/usr/bin/env node
// `npm create opkit <directory>`. Runs the package's JavaScript build (dist/, what npm installs); in opkit's
// repository without a build, its TypeScript sources through tsx, with the workspace packages resolved to
// their sources by the `@opkit/source` condition.
import { existsSync } from 'node:fs';

const built = new URL('../dist/main.js', import.meta.url);
const sources = new URL('../src/main.ts', import.meta.url);

if (existsSync(built)) {
  await import(built.href);
} else if (existsSync(sources)) {
  const { spawn } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const child = spawn(
    process.execPath,
    // tsx as this package resolves it: the user's directory has none.
    [
      '--conditions=@opkit/source',
      '--import',
      import.meta.resolve('tsx'),
      fileURLToPath(sources),
      ...process.argv.slice(2),
    ],
    { stdio: 'inherit' },
  );
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : 15) : 1);
  });
} else {
  process.stderr.write(
    'create-opkit: this installation has neither its build (dist/main.js) nor its sources\n',
  );
  process.exitCode = 1;
}
