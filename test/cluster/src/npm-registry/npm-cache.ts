import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * npm's cache directory as npm run in `directory` sees it (`npm config get cache`, with that project's
 * .npmrc), or npm's default when npm cannot be asked.
 */
export function npmCacheDirectory(directory: string): string {
  try {
    const env: NodeJS.ProcessEnv = {};
    // Not the `npm_config_*` of an enclosing npm command (its `workspace` would make npm refuse).
    for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key)) env[key] = value;
    const dir = execFileSync('npm', ['config', 'get', 'cache'], {
      cwd: directory,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
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
