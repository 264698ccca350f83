#!/usr/bin/env node
// The `opkit` command. It runs the CLI's JavaScript build (`dist/`, what the npm package ships; in the
// repository `nx run opkit:build` writes it, and every Nx target that runs the CLI builds it first) in this
// process: no second process, no compiler at start-up.
//
// In a checkout without a build, or with OPKIT_FROM_SOURCE=1, it runs the TypeScript sources instead: tsx
// compiles them on the fly in a child process, and workspace packages resolve to their sources through the
// `@opkit/source` export condition. Slower to start, but no build step between a change and a run.
//
// It first checks the Node.js version against `engines.node`, before it loads anything that needs a newer one.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import { requireNode } from './require-node.js';

requireNode('opkit', new URL('../package.json', import.meta.url));

/**
 * The per-user directory of the compile cache, beside other caches: `opkit/compile-cache` in
 * `$XDG_CACHE_HOME` or `~/.cache` (`%LOCALAPPDATA%` on Windows). Made one level at a time below a base that
 * must exist, never with a recursive mkdir, which loops forever below some read-only trees such as /proc.
 * `undefined` when it cannot be made.
 */
function compileCacheDir() {
  try {
    const base =
      process.env.XDG_CACHE_HOME ||
      (process.platform === 'win32' && process.env.LOCALAPPDATA) ||
      join(homedir(), '.cache');
    if (!statSync(base, { throwIfNoEntry: false })?.isDirectory()) return undefined;
    let dir = base;
    for (const part of ['opkit', 'compile-cache']) {
      dir = join(dir, part);
      try {
        mkdirSync(dir);
      } catch (err) {
        if (err.code !== 'EEXIST') return undefined;
      }
    }
    return dir;
  } catch {
    return undefined; // homedir() without a home
  }
}

/**
 * Keeps the V8 code of the CLI's modules on disk (Node >= 22.1), so that a run compiles only what changed since
 * the last: about a third of the catalog commands' start-up. NODE_COMPILE_CACHE, which Node applies itself,
 * wins. Without the API, or with a directory that cannot be used, the CLI runs as before, only slower: Node
 * reports a failure in the status it returns, never by failing the run.
 */
function enableCompileCache() {
  if (typeof module.enableCompileCache !== 'function' || process.env.NODE_COMPILE_CACHE) return;
  const dir = compileCacheDir();
  if (dir !== undefined) module.enableCompileCache(dir);
}

/**
 * Keeps V8's young generation at its first size (1 MiB a half) instead of letting it grow to 16 MiB a half. The
 * CLI's runs are short and what they load survives to the end (a whole catalog, kept until it is written), so a
 * larger young generation saves few collections but adds up to 32 MiB to the resident set: 10–20 MiB of the peak
 * of `catalog render` and `validate`, for a few percent more CPU. Set here, before anything is loaded, as the
 * growth factor is read when the young generation would grow; `--max-semi-space-size` is read only at start-up.
 */
function keepYoungGenerationSmall() {
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}

const built = new URL('../dist/main.js', import.meta.url);
const sources = new URL('../src/main.ts', import.meta.url);

if (process.env.OPKIT_FROM_SOURCE !== '1' && existsSync(built)) {
  keepYoungGenerationSmall();
  enableCompileCache();
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
