import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Root of everything opkit caches outside the repository: built binaries keyed by version.
 * `OPKIT_CACHE_DIR` wins, then `$XDG_CACHE_HOME/opkit`, then `~/.cache/opkit`.
 */
export function cacheRoot(): string {
  if (process.env.OPKIT_CACHE_DIR) return process.env.OPKIT_CACHE_DIR;
  const xdg = process.env.XDG_CACHE_HOME;
  return join(xdg && xdg.length > 0 ? xdg : join(homedir(), '.cache'), 'opkit');
}

/** Directory holding one built component version, e.g. `~/.cache/opkit/bin/kubernetes-v1.36.3`. */
export function componentDir(name: string, version: string): string {
  return join(cacheRoot(), 'bin', `${name}-v${version}`);
}

/** Whether a process with this id exists (one owned by another user counts). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A cross-process lock: a directory created atomically, holding the owner's pid. A lock whose owner died is
 * taken over, so a build killed half-way never blocks the next run.
 */
export async function withFileLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  mkdirSync(join(path, '..'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(path);
      writeFileSync(join(path, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pidFile = join(path, 'pid');
      const owner = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : Number.NaN;
      if (Number.isFinite(owner) && owner > 0 && !pidAlive(owner)) {
        rmSync(path, { recursive: true, force: true });
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(path, { recursive: true, force: true });
  }
}
