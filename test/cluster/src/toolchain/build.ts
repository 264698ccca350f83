import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot, componentDir, withFileLock } from './cache.js';
import { findGo, openBuildLog, runGo } from './go.js';
import type { ComponentRecipe } from './recipes.js';

export interface EnsureOptions {
  /** Progress lines for long builds (one per step and per module download). */
  readonly onProgress?: (line: string) => void;
}

export interface BuiltComponent {
  readonly name: string;
  readonly version: string;
  readonly dir: string;
  /** Seconds spent building; 0 when the cache already had it. */
  readonly buildSeconds: number;
}

/** Whether the component cache holds every file of the recipe's version (then using it needs no Go). */
export function isComplete(recipe: ComponentRecipe): boolean {
  const dir = componentDir(recipe.name, recipe.version);
  return recipe.files.every((f) => existsSync(join(dir, f)));
}

/**
 * Makes sure every component is built and cached, building the missing ones. A cached component costs a
 * few `stat`s and no Go at all. Builds run in a scratch directory and are renamed into place only when
 * complete, under a lock, so concurrent test runs and interrupted builds never see a half-built component.
 */
export async function ensureComponents(
  recipes: readonly ComponentRecipe[],
  options: EnsureOptions = {},
): Promise<Record<string, BuiltComponent>> {
  const progress = options.onProgress ?? (() => {});
  const result: Record<string, BuiltComponent> = {};
  const missing = recipes.filter((r) => !isComplete(r));
  const go = missing.length > 0 ? findGo() : undefined;
  for (const recipe of recipes) {
    const dir = componentDir(recipe.name, recipe.version);
    let buildSeconds = 0;
    if (go && !isComplete(recipe)) {
      await withFileLock(join(cacheRoot(), 'locks', `${recipe.name}-v${recipe.version}`), async () => {
        if (isComplete(recipe)) return;
        const started = Date.now();
        const scratch = join(cacheRoot(), 'build', `${recipe.name}-v${recipe.version}`);
        const workDir = join(scratch, 'module');
        const outDir = join(scratch, 'out');
        const logFile = join(cacheRoot(), 'build', `${recipe.name}-v${recipe.version}.log`);
        rmSync(scratch, { recursive: true, force: true });
        rmSync(logFile, { force: true });
        mkdirSync(workDir, { recursive: true });
        mkdirSync(outDir, { recursive: true });
        const log = openBuildLog(logFile);
        progress(`building ${recipe.name} v${recipe.version} with Go ${go.version} (log: ${logFile})`);
        let downloads = 0;
        try {
          await recipe.build({
            workDir,
            outDir,
            go: (args, opts) =>
              runGo(go.go, args, {
                cwd: opts?.cwd ?? workDir,
                env: opts?.env,
                log,
                logFile,
                component: recipe.name,
                onLine: (line) => {
                  if (line.startsWith('go: downloading')) {
                    downloads++;
                    if (downloads % 25 === 1)
                      progress(`  ${recipe.name}: ${line.slice(4)} (${downloads} modules so far)`);
                  }
                },
              }).then((out) => {
                if (args[0] === 'build' || args[0] === 'install' || args[0] === 'mod') {
                  progress(`  ${recipe.name}: go ${args.slice(0, 2).join(' ')} done`);
                }
                return out;
              }),
          });
        } finally {
          await new Promise((resolve) => log.end(resolve));
        }
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(join(dir, '..'), { recursive: true });
        renameSync(outDir, dir);
        rmSync(scratch, { recursive: true, force: true });
        buildSeconds = Math.round((Date.now() - started) / 1000);
        progress(`built ${recipe.name} v${recipe.version} in ${buildSeconds}s`);
      });
    }
    result[recipe.name] = { name: recipe.name, version: recipe.version, dir, buildSeconds };
  }
  return result;
}
