import { createHash } from 'node:crypto';
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ComponentRecipe, ensureComponents } from '@opkit/test-cluster';

/** The Go module of the baseline operator, committed with its go.sum. */
export const BASELINE_SOURCE_DIR = join(import.meta.dirname, '..', '..', 'go', 'memcached-baseline');

function sourceFiles(): string[] {
  return readdirSync(BASELINE_SOURCE_DIR)
    .filter((f) => f.endsWith('.go') || f === 'go.mod' || f === 'go.sum')
    .sort();
}

/** Short hash of every source file (names and contents): a changed source gets a fresh cache entry. */
export function baselineSourceHash(): string {
  const hash = createHash('sha256');
  for (const file of sourceFiles()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(BASELINE_SOURCE_DIR, file)));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/** Builds the baseline like the control plane components: once per source hash, into the opkit cache. */
export function baselineRecipe(): ComponentRecipe {
  return {
    name: 'memcached-baseline',
    version: baselineSourceHash(),
    files: ['memcached-baseline'],
    async build(ctx) {
      for (const file of sourceFiles())
        copyFileSync(join(BASELINE_SOURCE_DIR, file), join(ctx.workDir, file));
      await ctx.go([
        'build',
        '-trimpath',
        '-ldflags',
        '-s -w',
        '-o',
        join(ctx.outDir, 'memcached-baseline'),
        '.',
      ]);
    },
  };
}

/** The path of the cached baseline binary, building it on first use. */
export async function memcachedBaselineBinary(onProgress?: (line: string) => void): Promise<string> {
  const recipe = baselineRecipe();
  const built = await ensureComponents([recipe], { onProgress });
  return join(built[recipe.name]!.dir, 'memcached-baseline');
}
