import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ImageBuildError, ImageToolMissingError } from './errors.js';

const run = promisify(execFile);

/** A Debian package extracted into a root filesystem. */
export interface DebianPackage {
  readonly name: string;
  /** Full Debian version, e.g. `5:7.0.15-1~deb12u10`. */
  readonly version: string;
}

/** Options of {@link buildDebianRootfs}. */
export interface DebianRootfsOptions {
  /** Packages to extract, with their dependencies. */
  readonly packages: readonly string[];
  /** Release codename, e.g. `bookworm`. */
  readonly suite: string;
  /**
   * Debian architecture of the packages, e.g. `arm64`; default the machine's own. A foreign one needs no
   * emulation: the extract variant runs nothing inside the root.
   */
  readonly architecture?: string;
  /** mmdebstrap MIRROR arguments (sources files or URLs); empty means mmdebstrap's default mirror. */
  readonly sources: readonly string[];
  /** dpkg path-excludes on top of {@link PATH_EXCLUDES}, e.g. a dependency's files the image never uses. */
  readonly pathExcludes?: readonly string[];
  /** One line per mmdebstrap step. */
  readonly onProgress?: (line: string) => void;
}

/** Documentation, manuals and translations: nothing a container reads, most of a small image's size. */
export const PATH_EXCLUDES: readonly string[] = [
  '/usr/share/doc/*',
  '/usr/share/man/*',
  '/usr/share/info/*',
  '/usr/share/locale/*',
  '/usr/share/lintian/*',
];

/** Kept despite {@link PATH_EXCLUDES}: the licence of every package, as Debian's own images keep them. */
export const PATH_INCLUDES: readonly string[] = ['/usr/share/doc/*/copyright'];

/** mmdebstrap writes these timestamps; layers get their own fixed mtime, this keeps the tree itself stable. */
const SOURCE_DATE_EPOCH = '0';

/** debootstrap's merged-/usr layout (`/bin` → `usr/bin`, …), what Debian 12's own images have. */
const MERGED_USR_HOOK = '/usr/share/mmdebstrap/hooks/merged-usr/setup00.sh';

/**
 * The mmdebstrap command line: the extract variant unpacks the packages and their dependencies and runs no
 * maintainer scripts (nothing executes inside the new root, so no emulation, mounts or privileges beyond
 * writing files are involved). The downloaded `.deb`s are kept so their versions can be read.
 */
export function mmdebstrapArguments(dir: string, options: DebianRootfsOptions): string[] {
  if (options.packages.length === 0) throw new Error('a Debian root filesystem needs at least one package');
  return [
    '--variant=extract',
    `--include=${options.packages.join(',')}`,
    ...(options.architecture === undefined ? [] : [`--architectures=${options.architecture}`]),
    ...(existsSync(MERGED_USR_HOOK) ? [`--setup-hook=${MERGED_USR_HOOK}`] : []),
    '--skip=cleanup/apt/cache',
    // The cache usually lives under /root (0700), which apt's `_apt` download sandbox cannot enter; apt would
    // fall back to root anyway, with a warning on every build.
    '--aptopt=APT::Sandbox::User "root"',
    ...[...PATH_EXCLUDES, ...(options.pathExcludes ?? [])].map((p) => `--dpkgopt=path-exclude=${p}`),
    ...PATH_INCLUDES.map((p) => `--dpkgopt=path-include=${p}`),
    options.suite,
    dir,
    ...options.sources,
  ];
}

/**
 * Extracts `options.packages` and their dependencies into `dir` (which must not exist or be empty) with
 * mmdebstrap, then removes what must not be in an image: device nodes, the apt cache and lists, logs, `/run`,
 * the host's `resolv.conf` and `hostname`; and clears setuid/setgid bits (layers flatten owners to root, so a
 * setgid-`shadow` tool would become setgid-root, and no container here needs to gain privileges).
 *
 * @returns every extracted package with its version, sorted by name.
 * @throws ImageToolMissingError without mmdebstrap; ImageBuildError with mmdebstrap's last lines when it fails.
 */
export async function buildDebianRootfs(dir: string, options: DebianRootfsOptions): Promise<DebianPackage[]> {
  await mkdir(dir, { recursive: true });
  await runMmdebstrap(mmdebstrapArguments(dir, options), options.onProgress);
  const packages = await readArchiveVersions(join(dir, 'var', 'cache', 'apt', 'archives'));
  await pruneForImage(dir);
  await clearSetidBits(dir);
  return packages;
}

function runMmdebstrap(args: readonly string[], onProgress?: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('mmdebstrap', args, {
      env: { ...process.env, SOURCE_DATE_EPOCH, LC_ALL: 'C', DEBIAN_FRONTEND: 'noninteractive' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const tail: string[] = [];
    let partial = '';
    child.stderr.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        tail.push(line);
        if (tail.length > 20) tail.shift();
        // mmdebstrap's own status lines; the merged-/usr hook's dpkg chatter only goes into errors.
        if (/^[IWE]: /.test(line)) onProgress?.(line);
      }
    });
    child.once('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'ENOENT' ? new ImageToolMissingError('mmdebstrap', 'mmdebstrap') : err);
    });
    child.once('close', (code, signal) => {
      if (code === 0) return resolve();
      if (partial.trim() !== '') tail.push(partial);
      const why = signal === null ? `exit status ${code}` : `signal ${signal}`;
      reject(new ImageBuildError(`mmdebstrap ${args.join(' ')} failed (${why}):\n${tail.join('\n')}`));
    });
  });
}

/** Package and version of every `.deb` in `archives`, read with `dpkg-deb` rather than from file names. */
async function readArchiveVersions(archives: string): Promise<DebianPackage[]> {
  const debs = (await readdir(archives)).filter((name) => name.endsWith('.deb')).sort();
  const packages: DebianPackage[] = [];
  for (const deb of debs) {
    const { stdout } = await run('dpkg-deb', ['--field', join(archives, deb), 'Package', 'Version']);
    const name = /^Package:\s*(\S+)$/m.exec(stdout)?.[1];
    const version = /^Version:\s*(\S+)$/m.exec(stdout)?.[1];
    if (name === undefined || version === undefined) {
      throw new ImageBuildError(`cannot read package and version of ${join(archives, deb)}`);
    }
    packages.push({ name, version });
  }
  packages.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return packages;
}

/** Removes the parts of an extracted root that belong to the machine that built it, not to an image. */
async function pruneForImage(root: string): Promise<void> {
  // The container runtime provides /dev, /run, resolv.conf and hostname; the rest is build leftovers.
  for (const dir of ['dev', 'var/log']) {
    const abs = join(root, dir);
    if (!existsSync(abs)) continue;
    for (const name of await readdir(abs)) await rm(join(abs, name), { recursive: true, force: true });
  }
  for (const path of [
    'run',
    'var/cache/apt',
    'var/lib/apt/lists',
    // Extract mode installs nothing: dpkg's database would list only the merged-/usr marker package.
    'var/lib/dpkg',
    'etc/resolv.conf',
    'etc/hostname',
    'etc/machine-id',
    // The build's own apt settings (the sandbox user above).
    'etc/apt/apt.conf.d/99mmdebstrap',
  ]) {
    await rm(join(root, path), { recursive: true, force: true });
  }
}

async function clearSetidBits(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    const abs = join(dir, name);
    const st = await lstat(abs);
    if (st.isDirectory()) await clearSetidBits(abs);
    else if (st.isFile() && (st.mode & 0o6000) !== 0) await chmod(abs, st.mode & 0o1777);
  }
}
