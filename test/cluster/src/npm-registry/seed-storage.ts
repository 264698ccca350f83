import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cachedContent } from './npm-cache.js';

/** An entry of package-lock.json's `packages`. */
interface LockEntry {
  readonly name?: string;
  readonly version?: string;
  readonly integrity?: string;
  readonly link?: boolean;
  readonly inBundle?: boolean;
  readonly optional?: boolean;
  readonly os?: readonly string[];
  readonly cpu?: readonly string[];
  readonly libc?: readonly string[];
  readonly [field: string]: unknown;
}

/** Thrown when a package of the lock is not in npm's cache. */
export class MissingCacheEntryError extends Error {
  override readonly name = 'MissingCacheEntryError';
}

/** Thrown when the package-lock.json cannot be read: names the file and the field. */
export class LockfileError extends Error {
  override readonly name = 'LockfileError';
}

/** The `packages` of a package-lock.json (lockfileVersion 2 or 3); a v1 lock has none and is refused. */
function readLockPackages(lockfile: string): Record<string, LockEntry> {
  let lock: unknown;
  try {
    lock = JSON.parse(readFileSync(lockfile, 'utf8'));
  } catch (error) {
    throw new LockfileError(`${lockfile}: cannot read it as JSON: ${(error as Error).message}`);
  }
  const packages =
    typeof lock === 'object' && lock !== null ? (lock as { packages?: unknown }).packages : undefined;
  if (typeof packages !== 'object' || packages === null || Array.isArray(packages)) {
    throw new LockfileError(
      `${lockfile}: no "packages" object (lockfileVersion 1?): regenerate it with npm 7 or later (npm install --package-lock-only)`,
    );
  }
  return packages as Record<string, LockEntry>;
}

/** The fields of a manifest a registry serves for one version (npm's install reads these). */
const MANIFEST_FIELDS = [
  'description',
  'license',
  'main',
  'module',
  'types',
  'type',
  'exports',
  'bin',
  'directories',
  'engines',
  'os',
  'cpu',
  'libc',
  'dependencies',
  'optionalDependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'bundleDependencies',
  'scripts',
  'deprecated',
] as const;

function compareVersions(a: string, b: string): number {
  const [coreA = '', preA] = a.split(/-(.*)/s);
  const [coreB = '', preB] = b.split(/-(.*)/s);
  const partsA = coreA.split('.').map(Number);
  const partsB = coreB.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const diff = (partsA[i] ?? 0) - (partsB[i] ?? 0);
    if (diff !== 0) return diff;
  }
  if (preA === preB) return 0;
  if (preA === undefined) return 1;
  if (preB === undefined) return -1;
  return preA < preB ? -1 : 1;
}

function packageName(path: string, entry: LockEntry): string {
  return entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

/** The C library of this Linux machine, as npm's `libc` field names it. */
function hostLibc(): string {
  if (libc === undefined) {
    const header = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header;
    libc = header?.glibcVersionRuntime === undefined ? 'musl' : 'glibc';
  }
  return libc;
}
let libc: string | undefined;

function runsHere(entry: LockEntry): boolean {
  const os = entry.os ?? [];
  const cpu = entry.cpu ?? [];
  const allows = (list: readonly string[], value: string) => {
    const named = list.filter((v) => !v.startsWith('!'));
    return !list.includes(`!${value}`) && (named.length === 0 || named.includes(value));
  };
  return allows(os, process.platform) && allows(cpu, process.arch) && allows(entry.libc ?? [], hostLibc());
}

/** One version to serve: its manifest, and its tarball in npm's cache (none for another platform's package). */
interface SeedVersion {
  readonly manifest: Record<string, unknown>;
  readonly tarball?: string;
}

/**
 * Writes Verdaccio's local storage (`<storage>/<name>/package.json`, the packument with every version, and
 * `<file>.tgz` beside it) for every third-party package of a workspace's package-lock.json, the tarballs
 * taken from npm's cache: the registry then serves what the lock installs, with no uplink. A package built
 * for another platform that the cache lacks is served with its `os`/`cpu` and no tarball: npm skips it by
 * those before it would fetch it. Returns the number of package versions.
 */
export function seedStorage(options: {
  readonly lockfile: string;
  readonly workspaceRoot: string;
  readonly storage: string;
  readonly cacheDir: string;
}): number {
  const lock = readLockPackages(options.lockfile);
  const byName = new Map<string, Map<string, SeedVersion>>();
  for (const [path, entry] of Object.entries(lock)) {
    if (!path.startsWith('node_modules/') && !path.includes('/node_modules/')) continue;
    if (entry.link || entry.inBundle || entry.version === undefined) continue;
    const name = packageName(path, entry);
    const versions = byName.get(name) ?? new Map<string, SeedVersion>();
    byName.set(name, versions);
    if (versions.has(entry.version)) continue;
    const tarball = entry.integrity ? cachedContent(options.cacheDir, entry.integrity) : undefined;
    if (tarball === undefined && (!entry.optional || runsHere(entry))) {
      throw new MissingCacheEntryError(
        `${name}@${entry.version} of ${options.lockfile} is not in npm's cache (${options.cacheDir}): run \`npm ci\` in the workspace to fill it`,
      );
    }
    // The installed package.json is the published manifest; another platform's package is not installed.
    const installed = join(options.workspaceRoot, path, 'package.json');
    const source = existsSync(installed) ? (JSON.parse(readFileSync(installed, 'utf8')) as LockEntry) : entry;
    const manifest: Record<string, unknown> = { name, version: entry.version };
    for (const field of MANIFEST_FIELDS) if (source[field] !== undefined) manifest[field] = source[field];
    if (source.version !== entry.version)
      for (const field of ['os', 'cpu', 'libc'] as const) manifest[field] = entry[field];
    versions.set(entry.version, tarball === undefined ? { manifest } : { manifest, tarball });
  }

  let count = 0;
  for (const [name, versions] of byName) {
    const dir = join(options.storage, name);
    mkdirSync(dir, { recursive: true });
    const base = name.slice(name.lastIndexOf('/') + 1);
    const packument = {
      name,
      versions: {} as Record<string, unknown>,
      'dist-tags': { latest: [...versions.keys()].sort(compareVersions).at(-1) },
      time: {} as Record<string, string>,
      _uplinks: {},
      _distfiles: {},
      _attachments: {} as Record<string, unknown>,
      _rev: '1-0000000000000000',
    };
    for (const [version, seed] of versions) {
      const file = `${base}-${version}.tgz`;
      const dist: Record<string, string> = { tarball: `http://127.0.0.1/${name}/-/${file}` };
      if (seed.tarball !== undefined) {
        const target = join(dir, file);
        try {
          linkSync(seed.tarball, target);
        } catch {
          copyFileSync(seed.tarball, target);
        }
        const data = readFileSync(target);
        dist.shasum = createHash('sha1').update(data).digest('hex');
        dist.integrity = `sha512-${createHash('sha512').update(data).digest('base64')}`;
        packument._attachments[file] = { shasum: dist.shasum, version };
      }
      packument.versions[version] = { ...seed.manifest, _id: `${name}@${version}`, dist };
      packument.time[version] = new Date(0).toISOString();
      count++;
    }
    writeFileSync(join(dir, 'package.json'), JSON.stringify(packument));
  }
  return count;
}
