import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** npm's cache directory: `npm config get cache`, or npm's default when npm cannot be asked. */
export function npmCacheDirectory(): string {
  try {
    const dir = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
    if (dir !== '') return dir;
  } catch {
    // npm not on the PATH: its default below.
  }
  return join(homedir(), '.npm');
}

/**
 * The file of npm's content-addressed cache (cacache's `content-v2` layout) that holds the data of an
 * integrity string such as `sha512-<base64>`, or `undefined` when the cache does not have it.
 */
export function cachedContent(cacheDir: string, integrity: string): string | undefined {
  for (const hash of integrity.split(/\s+/)) {
    const dash = hash.indexOf('-');
    if (dash < 0) continue;
    const algorithm = hash.slice(0, dash);
    const hex = Buffer.from(hash.slice(dash + 1), 'base64').toString('hex');
    const path = join(
      cacheDir,
      '_cacache',
      'content-v2',
      algorithm,
      hex.slice(0, 2),
      hex.slice(2, 4),
      hex.slice(4),
    );
    if (existsSync(path)) return path;
  }
  return undefined;
}
