import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import type { UnpackedCatalog } from '@opkit/olm/action/catalog-image';
import type { UnpackLimits } from '@opkit/olm/action/image-unpack';
import { CliError } from './cli-error.js';

/** The prefix of a catalog source that is a directory at a git revision: `git:<revision>:<path>`. */
export const GIT_SOURCE_PREFIX = 'git:';

/** A catalog directory as one revision of the current repository has it. */
export interface GitCatalogSource {
  readonly revision: string;
  /** As given: relative to the current directory, like the other sources' directories. */
  readonly path: string;
}

/** `git:<revision>:<path>` split at its first colon after the prefix; `undefined` for any other source. */
export function parseGitSource(source: string): GitCatalogSource | undefined {
  if (!source.startsWith(GIT_SOURCE_PREFIX)) return undefined;
  const rest = source.slice(GIT_SOURCE_PREFIX.length);
  const colon = rest.indexOf(':');
  const revision = colon < 0 ? rest : rest.slice(0, colon);
  if (colon < 0 || revision === '' || revision.startsWith('-')) {
    throw new CliError(
      'OPKIT_CATALOG_SOURCE_INVALID',
      `${source}: a git source is git:<revision>:<path>, as in git:HEAD~1:catalog/configs`,
    );
  }
  return { revision, path: rest.slice(colon + 1) };
}

/** One file of the tree: where it goes below the catalog, its blob and size. */
interface TreeFile {
  readonly path: string;
  readonly object: string;
  readonly size: number;
}

const fail = (message: string): CliError => new CliError('OPKIT_CATALOG_SOURCE_INVALID', message);

/**
 * Reads a catalog directory as the revision has it (`git ls-tree`, then every blob through one `git cat-file
 * --batch`) into a temp dir that `dispose` removes, in the repository of `cwd`; nothing is written into the
 * repository. Symlinks, submodules and paths that would leave the directory are refused, as are trees over
 * the limits (the ones an image's unpacking has), each naming the revision and path. `signal` stops git and
 * the reading between two files: the temp dir is removed and the signal's reason thrown.
 */
export async function readGitCatalog(
  source: string,
  options: { cwd?: string; limits?: UnpackLimits; signal?: AbortSignal } = {},
): Promise<UnpackedCatalog> {
  const spec = parseGitSource(source);
  if (spec === undefined) throw fail(`${source}: not a git source (git:<revision>:<path>)`);
  const { signal } = options;
  signal?.throwIfAborted();
  const cwd = options.cwd ?? process.cwd();
  const git = (args: readonly string[]): Promise<string> => runGit(cwd, source, args, signal);
  const maxBytes = options.limits?.maxBytes ?? 2 * 1024 ** 3;
  const maxEntries = options.limits?.maxEntries ?? 1_000_000;
  const prefix = (await git(['rev-parse', '--show-prefix'])).trim();
  const commit = await resolveCommit(git, source, spec.revision);
  const treePath = repositoryPath(source, prefix, spec.path);
  const where = `${spec.path || '.'} at ${spec.revision}`;
  const type = await git(['cat-file', '-t', `${commit}:${treePath}`]).catch((err: unknown) => {
    if (signal?.aborted) throw err;
    throw fail(`${source}: ${spec.path || '.'} is not in revision ${spec.revision}`);
  });
  if (type.trim() !== 'tree') throw fail(`${source}: ${where} is not a directory`);
  const listing = await git(['ls-tree', '-r', '-z', '-l', '--full-tree', `${commit}:${treePath}`]);
  const files = treeFiles(source, where, listing, { maxBytes, maxEntries });
  const dir = mkdtempSync(join(tmpdir(), 'opkit-git-catalog-'));
  try {
    await writeBlobs(cwd, source, files, dir, signal);
    // Aborted while git's exit was awaited: nothing is handed out that the caller no longer wants.
    signal?.throwIfAborted();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    dir,
    description: source,
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The commit the revision names, or why there is none (a shallow clone lacks older history). */
async function resolveCommit(
  git: (args: readonly string[]) => Promise<string>,
  source: string,
  revision: string,
): Promise<string> {
  try {
    return (
      await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`])
    ).trim();
  } catch (err) {
    if (err instanceof CliError === false) throw err;
    const shallow = (await git(['rev-parse', '--is-shallow-repository'])).trim() === 'true';
    throw fail(
      shallow
        ? `${source}: revision ${revision} is not in this shallow clone; fetch more history (git fetch --unshallow)`
        : `${source}: unknown revision ${revision}`,
    );
  }
}

/** The path below the repository's root of `path` as seen from the current directory (`prefix`). */
function repositoryPath(source: string, prefix: string, path: string): string {
  if (posix.isAbsolute(path)) throw fail(`${source}: ${path} must be relative to the current directory`);
  const joined = posix.normalize(posix.join(prefix, path || '.'));
  if (joined === '..' || joined.startsWith('../')) throw fail(`${source}: ${path} is outside the repository`);
  return joined === '.' ? '' : joined.replace(/\/$/, '');
}

/** The regular files of `ls-tree -r -z -l` output, refusing what a catalog directory cannot hold. */
function treeFiles(
  source: string,
  where: string,
  listing: string,
  limits: { maxBytes: number; maxEntries: number },
): TreeFile[] {
  const files: TreeFile[] = [];
  let bytes = 0;
  for (const record of listing.split('\0')) {
    if (record === '') continue;
    const tab = record.indexOf('\t');
    const [mode = '', type = '', object = '', size = ''] = record.slice(0, tab).split(/ +/);
    const path = record.slice(tab + 1);
    if (mode === '120000') throw fail(`${source}: ${where} holds a symlink, ${path}, which a catalog cannot`);
    if (type === 'commit')
      throw fail(`${source}: ${where} holds a submodule, ${path}, which a catalog cannot`);
    if (type !== 'blob') throw fail(`${source}: ${where} holds ${path} of type ${type}, not a file`);
    const parts = path.split('/');
    if (parts.some((part) => part === '' || part === '.' || part === '..'))
      throw fail(`${source}: ${where} holds ${JSON.stringify(path)}, which leaves the directory`);
    bytes += Number(size);
    if (files.length + 1 > limits.maxEntries)
      throw fail(`${source}: ${where} holds more than ${limits.maxEntries} files`);
    if (bytes > limits.maxBytes)
      throw fail(`${source}: ${where} holds more than ${limits.maxBytes} bytes (at ${path})`);
    files.push({ path, object, size: Number(size) });
  }
  return files;
}

/** Writes every file's blob below `dir`, reading them all through one `git cat-file --batch`. */
async function writeBlobs(
  cwd: string,
  source: string,
  files: readonly TreeFile[],
  dir: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (files.length === 0) return;
  const child = spawn('git', ['cat-file', '--batch'], {
    cwd,
    env: gitEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // Stops git at once; the loop below sees the signal at its next chunk or file.
  const stopGit = (): void => {
    child.kill();
  };
  signal?.addEventListener('abort', stopGit, { once: true });
  const exited = exitOf(child, source);
  // Should reading stop early, git is stopped, and its exit is no longer waited for.
  exited.catch(() => {});
  try {
    child.stdin.end(files.map((f) => `${f.object}\n`).join(''));
    await readBatch(child, source, files, dir, signal);
  } finally {
    signal?.removeEventListener('abort', stopGit);
    if (child.exitCode === null) child.kill();
  }
  await exited;
}

/** Writes each answer of `git cat-file --batch` to its file below `dir`, in the order they were asked for. */
async function readBatch(
  child: ChildProcess,
  source: string,
  files: readonly TreeFile[],
  dir: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  // Each answer is `<object> blob <size>\n<content>\n`; chunks are gathered until an answer is whole, and
  // joined once then, so that a large blob is not copied again with every chunk.
  let next = 0;
  let chunks: Buffer[] = [];
  let buffered = 0;
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    signal?.throwIfAborted();
    chunks.push(chunk);
    buffered += chunk.length;
    while (next < files.length && chunks.length > 0) {
      signal?.throwIfAborted();
      const file = files[next] as TreeFile;
      // The header is short: it is in the first chunk or two.
      if (chunks.length > 1 && (chunks[0] as Buffer).indexOf(10) < 0) chunks = [Buffer.concat(chunks)];
      const first = chunks[0] as Buffer;
      const header = first.indexOf(10);
      if (header < 0 || buffered < header + 1 + file.size + 1) break;
      const whole = chunks.length === 1 ? first : Buffer.concat(chunks);
      const end = header + 1 + file.size + 1;
      const [object, type] = whole.subarray(0, header).toString().split(' ');
      if (object !== file.object || type !== 'blob') throw fail(`${source}: git could not read ${file.path}`);
      const target = join(dir, ...file.path.split('/'));
      mkdirSync(join(target, '..'), { recursive: true });
      writeFileSync(target, whole.subarray(header + 1, end - 1));
      const rest = whole.subarray(end);
      chunks = rest.length > 0 ? [rest] : [];
      buffered = rest.length;
      next++;
    }
  }
  signal?.throwIfAborted();
  if (next < files.length) throw fail(`${source}: git could not read ${(files[next] as TreeFile).path}`);
}

/** Git without the optional locks that even reading commands may take on the index. */
function gitEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' };
}

function exitOf(child: ChildProcess, source: string): Promise<void> {
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve, reject) => {
    child.on('error', (err) => reject(gitError(source, err)));
    child.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(fail(`${source}: git cat-file failed: ${stderr.trim().split('\n')[0]}`)),
    );
  });
}

/**
 * Runs git in `cwd` with an argument array (no shell); a missing git or repository is said in one line. An
 * aborted `signal` stops git and rejects with its reason.
 */
function runGit(
  cwd: string,
  source: string,
  args: readonly string[],
  signal: AbortSignal | undefined,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const options = { cwd, env: gitEnv(), maxBuffer: 1 << 30, ...(signal === undefined ? {} : { signal }) };
    execFile('git', args, options, (err, stdout, stderr) => {
      if (err === null) return resolve(stdout);
      if (signal?.aborted) return reject(signal.reason);
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return reject(gitError(source, err));
      if (/not a git repository/i.test(stderr))
        return reject(fail(`${source}: the current directory is not in a git repository`));
      reject(fail(`${source}: git ${args[0]} failed: ${stderr.trim().split('\n')[0] || err.message}`));
    });
  });
}

function gitError(source: string, err: Error): CliError {
  return (err as NodeJS.ErrnoException).code === 'ENOENT'
    ? fail(`${source}: git is not installed, or not on the PATH`)
    : fail(`${source}: ${err.message}`);
}
