import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ImageBuildError } from './errors.js';

const run = promisify(execFile);

/** The release codename in an `/etc/os-release` text (`VERSION_CODENAME`), or `undefined`. */
export function suiteFromOsRelease(text: string): string | undefined {
  const match = /^VERSION_CODENAME=["']?([a-z]+)["']?\s*$/m.exec(text);
  return match?.[1];
}

/**
 * The Debian suite to build images from: the machine's own release, so the images get the same package
 * versions (and security updates) as the host's apt.
 *
 * @throws ImageBuildError when `/etc/os-release` names no codename (not a Debian machine).
 */
export function hostDebianSuite(osRelease = '/etc/os-release'): string {
  const text = existsSync(osRelease) ? readFileSync(osRelease, 'utf8') : '';
  const suite = suiteFromOsRelease(text);
  if (suite === undefined || !/^ID=["']?debian["']?\s*$/m.test(text)) {
    throw new ImageBuildError(
      `cannot tell the Debian release from ${osRelease}: the cluster's images are built from Debian packages on a Debian host`,
    );
  }
  return suite;
}

/**
 * The machine's Debian apt sources, as files mmdebstrap pastes into the new root's sources. Without a mirror
 * argument mmdebstrap would use Debian's default mirror, not the machine's configuration; passing these keeps the
 * images on the mirror (and snapshot) the host uses. Only Debian's own lists are used, never third-party ones.
 */
export function hostAptSources(): string[] {
  const deb822 = '/etc/apt/sources.list.d/debian.sources';
  const oneLine = '/etc/apt/sources.list';
  const sources: string[] = [];
  if (existsSync(deb822)) sources.push(deb822);
  if (existsSync(oneLine) && /^\s*deb\s/m.test(readFileSync(oneLine, 'utf8'))) sources.push(oneLine);
  return sources;
}

/** Parses `apt-cache policy` output into package → candidate version (packages apt cannot install are left out). */
export function parseAptPolicy(output: string): Record<string, string> {
  const versions: Record<string, string> = {};
  let current: string | undefined;
  for (const line of output.split('\n')) {
    const header = /^(\S+):$/.exec(line);
    if (header !== null) {
      current = header[1];
      continue;
    }
    const candidate = /^\s+Candidate:\s+(\S+)$/.exec(line);
    if (current !== undefined && candidate !== null && candidate[1] !== '(none)') {
      versions[current] = candidate[1]!;
    }
  }
  return versions;
}

/**
 * The versions the machine's apt would install for `packages` (`apt-cache policy`), for cache keys: they change
 * when a point release or security update reaches the host's package lists. The answer is remembered in
 * `memoFile` together with a fingerprint of the apt lists and sources (names, sizes, mtimes), so as long as
 * `apt-get update` has not run again this costs a few `stat`s instead of a second of parsing. A package apt
 * does not know maps to `unknown`.
 */
export async function candidateVersions(
  packages: readonly string[],
  memoFile: string,
): Promise<Record<string, string>> {
  const wanted = [...new Set(packages)].sort();
  if (wanted.length === 0) return {};
  const fingerprint = await aptStateFingerprint(wanted);
  try {
    const memo = JSON.parse(await readFile(memoFile, 'utf8')) as {
      fingerprint?: string;
      versions?: Record<string, string>;
    };
    if (memo.fingerprint === fingerprint && memo.versions !== undefined) return memo.versions;
  } catch {
    // No memo yet, or an unreadable one: ask apt.
  }
  let output = '';
  try {
    output = (await run('apt-cache', ['policy', ...wanted], { maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch {
    // No apt-cache: every version is unknown, and the memo still saves the next attempt.
  }
  const known = parseAptPolicy(output);
  const versions: Record<string, string> = {};
  for (const name of wanted) versions[name] = known[name] ?? 'unknown';
  await mkdir(dirname(memoFile), { recursive: true });
  const tmp = `${memoFile}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify({ fingerprint, versions }));
  await rename(tmp, memoFile);
  return versions;
}

/** A digest of everything `apt-cache policy` answers from: lists, sources and pinning, by name, size and mtime. */
async function aptStateFingerprint(packages: readonly string[]): Promise<string> {
  const hash = createHash('sha256').update(JSON.stringify(packages));
  const describe = async (path: string): Promise<void> => {
    try {
      const st = await stat(path);
      hash.update(`${path}\0${st.size}\0${st.mtimeMs}\n`);
      if (st.isDirectory()) {
        for (const name of (await readdir(path)).sort()) await describe(join(path, name));
      }
    } catch {
      hash.update(`${path}\0missing\n`);
    }
  };
  for (const path of [
    '/var/lib/apt/lists',
    '/etc/apt/sources.list',
    '/etc/apt/sources.list.d',
    '/etc/apt/preferences',
    '/etc/apt/preferences.d',
  ]) {
    await describe(path);
  }
  return hash.digest('hex');
}
