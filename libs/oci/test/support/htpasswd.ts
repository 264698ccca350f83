import { execFileSync } from 'node:child_process';

/**
 * An htpasswd line with a bcrypt hash (the only scheme distribution accepts), or `undefined` when no tool on
 * this machine can make one. Tries Apache's `htpasswd -B` (apache2-utils), then Python's `crypt` module, which
 * on Debian uses libxcrypt and supports `$2b$` (the module was removed in Python 3.13).
 */
export function bcryptHtpasswdLine(user: string, password: string): string | undefined {
  try {
    return execFileSync('htpasswd', ['-nbB', '-C', '4', user, password], {
      encoding: 'utf8',
      stdio: 'pipe',
    }).trim();
  } catch {
    // not installed
  }
  try {
    const script = [
      'import crypt, sys',
      'h = crypt.crypt(sys.stdin.read(), crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16))',
      'assert h and h.startswith("$2")',
      'print(h)',
    ].join('\n');
    const hash = execFileSync('python3', ['-W', 'ignore', '-c', script], {
      input: password,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'ignore'],
    }).trim();
    return `${user}:${hash}`;
  } catch {
    return undefined;
  }
}
