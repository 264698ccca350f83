#!/usr/bin/env node
// Runs the TypeScript CLI from source: workspace packages resolve to their sources through the
// `@opkit/source` export condition, and tsx compiles on the fly.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const result = spawnSync(
  process.execPath,
  ['--conditions=@opkit/source', '--import', 'tsx', main, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
