// The one rule for every command that writes a directory (a bundle, a catalog, an OCI layout): it never
// destroys what it did not write. The output may be neither the current directory, an input, nor a directory
// holding one, and no entry it replaces may be, hold or lie in an input (real paths: symlinks and `..` are
// resolved as the kernel resolves them). A non-empty directory is written only when it is recognisably an
// earlier output of the same writer (or when forced), and then only the entries that writer owns are
// replaced, as operator-sdk replaces a bundle's `manifests/` and `metadata/` and leaves the rest. New content
// is staged in a sibling temporary directory and renamed into place; a failure puts back what was there.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, realpath, rename, rm } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** A path the user named, with the flag or argument that named it (`--operator`, `<source>`). */
export interface NamedPath {
  readonly name: string;
  readonly path: string;
}

/** How a command's output directory is guarded; every field is optional. */
export interface OutputGuard {
  /** The flag or argument naming the output, put in front of its path in errors. @default 'output directory' */
  readonly name?: string;
  /** What the command reads: the output may be none of them and hold none of them. */
  readonly inputs?: readonly NamedPath[];
  /**
   * Write into a non-empty directory that is not an earlier output too (still replacing only the writer's own
   * entries). Never overrides the rules about the current directory and the inputs.
   */
  readonly force?: boolean;
  /** The flag that sets `force`, suggested in the refusal; a command without one gets no suggestion. */
  readonly forceFlag?: string;
}

/** What a writer produces, and how an earlier output of it is recognised. */
export interface OutputKind {
  /** For messages: `bundle`, `catalog`, `OCI layout`. */
  readonly what: string;
  /** How an earlier output is told, for messages: `a bundle has metadata/annotations.yaml`. */
  readonly mark: string;
  /** Whether the non-empty directory `dir` is an earlier output; absent: only an empty directory is written. */
  readonly isEarlierOutput?: (dir: string) => Promise<boolean>;
}

/** One write of an output directory. */
export interface OutputWrite {
  /**
   * The entries the writer owns, relative to the directory (`manifests`, `tests/scorecard/config.yaml`):
   * each is replaced by the staged one, or removed when none is staged. Nothing else is touched.
   */
  readonly owned: readonly string[];
  /** Writes the new content into `dir`, an empty temporary directory; only owned entries may be written. */
  readonly stage: (dir: string) => Promise<void>;
}

/** Stable codes of {@link OutputDirectoryError}. */
export type OutputDirectoryErrorCode = 'OUTPUT_DIRECTORY_REFUSED';

/** The output directory would destroy what the command did not write; nothing was written. */
export class OutputDirectoryError extends Error {
  readonly code: OutputDirectoryErrorCode = 'OUTPUT_DIRECTORY_REFUSED';
  constructor(
    /** The output's real path. */
    readonly dir: string,
    message: string,
  ) {
    super(message);
    this.name = 'OutputDirectoryError';
  }
}

const errno = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | undefined)?.code;

async function lstatOrUndefined(path: string) {
  try {
    return await lstat(path);
  } catch (err) {
    if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR') return undefined;
    throw err;
  }
}

/**
 * The real path `path` names, as the kernel would walk it: each existing component with its symlinks resolved
 * before the next `..` applies; below the first missing component the rest is taken as written.
 *
 * @returns the real path, or the link that points nowhere
 */
async function realPathOf(path: string): Promise<{ real: string; dangling?: string }> {
  const absolute = isAbsolute(path) ? path : `${process.cwd()}${sep}${path}`;
  let at = resolve('/');
  let missing = false;
  for (const part of absolute.split(sep)) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      at = dirname(at);
      continue;
    }
    const next = join(at, part);
    if (missing) {
      at = next;
      continue;
    }
    const stat = await lstatOrUndefined(next);
    if (stat === undefined) missing = true;
    else if (stat.isSymbolicLink()) {
      try {
        at = await realpath(next);
        continue;
      } catch (err) {
        if (errno(err) === 'ENOENT') return { real: next, dangling: next };
        throw err;
      }
    }
    at = next;
  }
  return { real: at };
}

/** Whether `inner` is `outer` or lies below it. */
function within(outer: string, inner: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * Checks `path` against the rule and returns its real path (what the writer writes to), or throws. `exists`
 * tells whether it is an existing directory.
 *
 * @throws OutputDirectoryError naming the flag, the path and what to do instead.
 */
async function checkOutputDirectory(
  path: string,
  kind: OutputKind,
  owned: readonly string[],
  guard: OutputGuard = {},
): Promise<{ readonly real: string; readonly exists: boolean }> {
  const name = guard.name ?? 'output directory';
  const { real, dangling } = await realPathOf(path);
  const shown = real === resolve(path) ? path : `${path} (${real})`;
  const refuse = (why: string): never => {
    throw new OutputDirectoryError(real, `${name} ${shown}: ${why}`);
  };
  if (dangling !== undefined) refuse(`${dangling} is a symbolic link to nothing; name a real directory`);
  const cwd = await realpath(process.cwd());
  if (real === cwd) refuse(`the current directory; write the ${kind.what} to a directory of its own`);
  if (within(real, cwd))
    refuse(`holds the current directory; write the ${kind.what} to a directory of its own`);
  // Where each owned entry lands (its directory's links resolved; the entry itself is renamed, not followed).
  const ownedReal = await Promise.all(
    owned.map(async (entry) => ({
      entry,
      real: join((await realPathOf(join(real, dirname(entry)))).real, basename(entry)),
    })),
  );
  for (const input of guard.inputs ?? []) {
    const { real: inputReal } = await realPathOf(input.path);
    if (inputReal === real)
      refuse(`is ${input.name} ${input.path}, an input; write the ${kind.what} elsewhere`);
    if (within(real, inputReal))
      refuse(`holds ${input.name} ${input.path}, an input; write the ${kind.what} elsewhere`);
    // An entry the writer replaces may not be, hold or lie in an input, --force or not; lying in an input is
    // allowed only as the whole output does (a bundle directory inside the operator project it is made from).
    for (const { entry, real: entryReal } of ownedReal) {
      const inside = within(inputReal, entryReal) && !within(inputReal, real);
      if (within(entryReal, inputReal) || inside) {
        refuse(
          `its ${entry} would replace ${input.name} ${input.path}${entryReal === inputReal ? '' : ` (${entryReal})`}, an input; write the ${kind.what} elsewhere`,
        );
      }
    }
  }
  const stat = await lstatOrUndefined(real);
  if (stat === undefined) return { real, exists: false };
  if (!stat.isDirectory()) refuse(`not a directory; name a directory for the ${kind.what}`);
  const entries = await readdir(real);
  if (entries.length === 0 || guard.force) return { real, exists: true };
  if (kind.isEarlierOutput === undefined) refuse(`not empty; name an empty or new directory`);
  else if (!(await kind.isEarlierOutput(real))) {
    const forced =
      guard.forceFlag === undefined
        ? ''
        : `, or add ${guard.forceFlag} to write only the ${kind.what}'s own files into it`;
    refuse(
      `not empty and not ${/^[aeiou]/i.test(kind.what) ? 'an' : 'a'} ${kind.what} (${kind.mark}); name an empty or new directory${forced}`,
    );
  }
  return { real, exists: true };
}

/** Every staged path lies in an owned entry, so nothing staged is silently left out of the output. */
async function assertStagedOwned(temp: string, owned: ReadonlySet<string>, rel = ''): Promise<void> {
  for (const entry of await readdir(join(temp, rel), { withFileTypes: true })) {
    const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (owned.has(path)) continue;
    const holdsOwned = [...owned].some((o) => o.startsWith(`${path}/`));
    if (!holdsOwned || !entry.isDirectory()) {
      throw new Error(`staged ${path} is not among the entries the writer owns (${[...owned].join(', ')})`);
    }
    await assertStagedOwned(temp, owned, path);
  }
}

/** The owned paths, checked: relative, normalised, none inside another. */
function ownedPaths(owned: readonly string[]): string[] {
  const paths = [...new Set(owned)].sort();
  for (const p of paths) {
    const parts = p.split('/');
    if (p === '' || isAbsolute(p) || parts.some((s) => s === '' || s === '.' || s === '..')) {
      throw new Error(`owned entry ${JSON.stringify(p)} is not a relative path`);
    }
    if (paths.some((q) => q !== p && p.startsWith(`${q}/`)))
      throw new Error(`owned entry ${p} lies in another`);
  }
  return paths;
}

/**
 * Writes an output directory under the rule (see {@link checkOutputDirectory}): the content is staged in a
 * sibling temporary directory; an absent directory is then created by one rename, an existing one gets each
 * owned entry swapped in by renames, its other entries left alone. On failure the old entries are put back and
 * the temporary directories removed.
 *
 * @returns the real path written
 * @throws OutputDirectoryError when the rule refuses the directory; the file system's error when a write fails.
 */
export async function writeOutputDirectory(
  path: string,
  kind: OutputKind,
  write: OutputWrite,
  guard: OutputGuard = {},
): Promise<string> {
  const owned = ownedPaths(write.owned);
  const { real, exists } = await checkOutputDirectory(path, kind, owned, guard);
  if (exists)
    for (const entry of owned) await assertNoLinkOnTheWay(real, entry, guard.name ?? 'output directory');
  const parent = dirname(real);
  const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const temp = join(parent, `.${basename(real)}.tmp-${suffix}`);
  const backup = join(parent, `.${basename(real)}.old-${suffix}`);
  await mkdir(parent, { recursive: true });
  await mkdir(temp);
  const swap = { restored: true };
  try {
    await write.stage(temp);
    await assertStagedOwned(temp, new Set(owned));
    if (!exists) await rename(temp, real);
    else await swapOwned(real, temp, backup, owned, swap);
  } finally {
    await rm(temp, { recursive: true, force: true });
    // Should putting an old entry back have failed, it is still in the backup: never removed then.
    if (swap.restored) await rm(backup, { recursive: true, force: true });
  }
  return real;
}

/**
 * Moves each owned entry of `dir` to `backup` and the staged one from `temp` into its place; on failure undoes
 * the moves in reverse and rethrows, saying where the old entries are should putting one back fail
 * (`swap.restored` false then).
 */
async function swapOwned(
  dir: string,
  temp: string,
  backup: string,
  owned: readonly string[],
  swap: { restored: boolean },
): Promise<void> {
  const undo: (() => Promise<unknown>)[] = [];
  try {
    for (const entry of owned) {
      const target = join(dir, entry);
      const staged = join(temp, entry);
      if ((await lstatOrUndefined(target)) !== undefined) {
        const kept = join(backup, entry);
        await mkdir(dirname(kept), { recursive: true });
        await rename(target, kept);
        undo.push(() => rename(kept, target));
      }
      if ((await lstatOrUndefined(staged)) !== undefined) {
        await mkdir(dirname(target), { recursive: true });
        await rename(staged, target);
        undo.push(() => rename(target, staged));
      }
    }
  } catch (err) {
    for (const step of undo.reverse()) {
      await step().catch(() => {
        swap.restored = false;
      });
    }
    if (!swap.restored) {
      throw new Error(`${(err as Error).message}; the previous entries are kept in ${backup}`, {
        cause: err,
      });
    }
    throw err;
  }
}

/** An owned entry below a symlink or a file is refused: the rename would land elsewhere, or fail half-way. */
async function assertNoLinkOnTheWay(dir: string, entry: string, name: string): Promise<void> {
  const parts = entry.split('/');
  for (let i = 1; i < parts.length; i++) {
    const at = join(dir, ...parts.slice(0, i));
    const stat = await lstatOrUndefined(at);
    if (stat === undefined) return;
    if (!stat.isDirectory()) {
      throw new OutputDirectoryError(
        dir,
        `${name} ${dir}: ${at} is ${stat.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}, where ${entry} goes; move it away`,
      );
    }
  }
}
