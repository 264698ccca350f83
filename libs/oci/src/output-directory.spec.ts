import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type OutputKind, type OutputWrite, writeOutputDirectory } from './output-directory.js';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'opkit-output-')));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A kind that takes every directory for an earlier output: only the rules about inputs protect then. */
const anything: OutputKind = { what: 'thing', mark: 'mark', isEarlierOutput: async () => true };
/** A kind recognised by a `mark` file. */
const marked: OutputKind = {
  what: 'thing',
  mark: 'a thing has a mark file',
  isEarlierOutput: async (dir) => existsSync(join(dir, 'mark')),
};

/** Owns `mark`, `data/` and `deep/owned.txt`; stages them with `content`. */
const writing = (content: string): OutputWrite => ({
  owned: ['mark', 'data', 'deep/owned.txt'],
  stage: async (dir) => {
    await writeFile(join(dir, 'mark'), content);
    await mkdir(join(dir, 'data'));
    await writeFile(join(dir, 'data', 'file'), content);
  },
});

const put = (path: string, content = 'x'): void => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
};

describe('writeOutputDirectory', () => {
  it('creates an absent directory, parents included, and leaves no temporary directory', async () => {
    const out = join(root, 'a', 'b', 'out');
    expect(await writeOutputDirectory(out, marked, writing('1'))).toBe(out);
    expect(readFileSync(join(out, 'data', 'file'), 'utf8')).toBe('1');
    expect(readdirSync(join(root, 'a', 'b'))).toEqual(['out']);
  });

  it('replaces only owned entries of an earlier output, and removes owned entries not staged', async () => {
    const out = join(root, 'out');
    await writeOutputDirectory(out, marked, writing('1'));
    put(join(out, 'data', 'stale'));
    put(join(out, 'deep', 'owned.txt'), 'old');
    put(join(out, 'deep', 'other.txt'), 'mine');
    put(join(out, 'notes.md'), 'mine');
    await writeOutputDirectory(out, marked, writing('2'));
    expect(readdirSync(join(out, 'data'))).toEqual(['file']);
    expect(readFileSync(join(out, 'data', 'file'), 'utf8')).toBe('2');
    expect(readdirSync(join(out, 'deep'))).toEqual(['other.txt']);
    expect(readFileSync(join(out, 'notes.md'), 'utf8')).toBe('mine');
    expect(readdirSync(root)).toEqual(['out']);
  });

  it('refuses a non-empty directory that is not an earlier output; forced, it keeps the other files', async () => {
    const out = join(root, 'out');
    put(join(out, 'data', 'precious'), 'mine');
    await expect(
      writeOutputDirectory(out, marked, writing('1'), { name: '--out', forceFlag: '--force' }),
    ).rejects.toThrow(
      `--out ${out}: not empty and not a thing (a thing has a mark file); name an empty or new directory, or add --force to write only the thing's own files into it`,
    );
    await expect(writeOutputDirectory(out, { what: 'x', mark: 'y' }, writing('1'))).rejects.toThrow(
      `output directory ${out}: not empty; name an empty or new directory`,
    );
    expect(readdirSync(root)).toEqual(['out']);
    put(join(out, 'other'), 'mine');
    await writeOutputDirectory(out, marked, writing('1'), { force: true });
    expect(readdirSync(out).sort()).toEqual(['data', 'mark', 'other']);
    expect(readFileSync(join(out, 'other'), 'utf8')).toBe('mine');
  });

  it('refuses the current directory and its ancestors, forced or not', async () => {
    const cwd = process.cwd();
    const here = join(root, 'here');
    mkdirSync(here);
    process.chdir(here);
    try {
      for (const path of ['.', '..', here, `${here}${sep}..${sep}here`]) {
        await expect(
          writeOutputDirectory(path, anything, writing('1'), { name: '--out', force: true }),
        ).rejects.toMatchObject({ code: 'OUTPUT_DIRECTORY_REFUSED' });
      }
      await expect(writeOutputDirectory('.', anything, writing('1'), { name: '--out' })).rejects.toThrow(
        '--out .: the current directory; write the thing to a directory of its own',
      );
    } finally {
      process.chdir(cwd);
    }
    expect(readdirSync(here)).toEqual([]);
    expect(readdirSync(root)).toEqual(['here']);
  });

  it('refuses an input and its ancestors, through symlinks and .. after a symlink', async () => {
    const input = join(root, 'project', 'config');
    put(join(input, 'kustomization.yaml'), 'mine');
    symlinkSync(join(root, 'project'), join(root, 'link'));
    mkdirSync(join(root, 'elsewhere', 'deeper'), { recursive: true });
    symlinkSync(input, join(root, 'elsewhere', 'deeper', 'to-config'));
    const inputs = [{ name: '--operator', path: input }];
    const refused = [
      [input, `--out ${input}: is --operator ${input}, an input; write the thing elsewhere`],
      [join(root, 'link'), `--out ${join(root, 'link')} (${join(root, 'project')}): holds --operator`],
      [join(root, 'link', 'config'), 'is --operator'],
      // The kernel takes `..` after the link from where the link points: the project, not `elsewhere`.
      [`${join(root, 'elsewhere', 'deeper', 'to-config')}${sep}..`, 'holds --operator'],
      [root, 'holds --operator'],
    ] as const;
    for (const [path, message] of refused) {
      await expect(
        writeOutputDirectory(path, anything, writing('1'), { name: '--out', inputs, force: true }),
        path,
      ).rejects.toThrow(message);
    }
    expect(readFileSync(join(input, 'kustomization.yaml'), 'utf8')).toBe('mine');
    expect(readdirSync(join(root, 'project'))).toEqual(['config']);
    // Below an input is fine: operator-sdk writes bundle/ inside the project.
    await writeOutputDirectory(join(root, 'link', 'bundle'), anything, writing('1'), { inputs });
    expect(readFileSync(join(root, 'project', 'bundle', 'mark'), 'utf8')).toBe('1');
  });

  it('refuses, forced or not, an owned entry that lands in an input', async () => {
    const input = join(root, 'project', 'config');
    put(join(input, 'owned.txt'), 'mine');
    const out = join(root, 'out');
    put(join(out, 'mark'));
    symlinkSync(input, join(out, 'deep'));
    await expect(
      writeOutputDirectory(out, marked, writing('1'), {
        name: '--out',
        inputs: [{ name: '--operator', path: input }],
        force: true,
      }),
    ).rejects.toThrow(
      `--out ${out}: its deep/owned.txt would replace --operator ${input} (${join(input, 'owned.txt')}), an input; write the thing elsewhere`,
    );
    expect(readFileSync(join(input, 'owned.txt'), 'utf8')).toBe('mine');
  });

  it('refuses a file, a symlink to nothing and an owned entry below a symlink', async () => {
    put(join(root, 'file'));
    await expect(writeOutputDirectory(join(root, 'file'), marked, writing('1'))).rejects.toThrow(
      'not a directory; name a directory for the thing',
    );
    symlinkSync(join(root, 'nowhere'), join(root, 'dangling'));
    await expect(writeOutputDirectory(join(root, 'dangling', 'x'), marked, writing('1'))).rejects.toThrow(
      `${join(root, 'dangling')} is a symbolic link to nothing`,
    );
    const out = join(root, 'out');
    put(join(out, 'mark'));
    mkdirSync(join(root, 'victim'));
    put(join(root, 'victim', 'owned.txt'), 'mine');
    symlinkSync(join(root, 'victim'), join(out, 'deep'));
    await expect(writeOutputDirectory(out, marked, writing('1'))).rejects.toThrow(
      `${join(out, 'deep')} is a symbolic link, where deep/owned.txt goes; move it away`,
    );
    expect(readFileSync(join(root, 'victim', 'owned.txt'), 'utf8')).toBe('mine');
    expect(readFileSync(join(out, 'mark'), 'utf8')).toBe('x');
  });

  it('keeps the old output when staging fails half-way, and leaves no temporary directory', async () => {
    const out = join(root, 'out');
    await writeOutputDirectory(out, marked, writing('old'));
    const failing: OutputWrite = {
      owned: ['mark', 'data'],
      stage: async (dir) => {
        await writeFile(join(dir, 'mark'), 'new');
        throw new Error('disk full');
      },
    };
    await expect(writeOutputDirectory(out, marked, failing)).rejects.toThrow('disk full');
    expect(readFileSync(join(out, 'mark'), 'utf8')).toBe('old');
    expect(readFileSync(join(out, 'data', 'file'), 'utf8')).toBe('old');
    expect(readdirSync(root)).toEqual(['out']);
  });

  it('puts every swapped entry back when a rename fails half-way through the swap', async () => {
    const out = join(root, 'out');
    await writeOutputDirectory(out, marked, writing('old'));
    const blocked: OutputWrite = {
      owned: ['data', 'deep/owned.txt', 'mark'],
      stage: async (dir) => {
        await writing('new').stage(dir);
        await mkdir(join(dir, 'deep'));
        await writeFile(join(dir, 'deep', 'owned.txt'), 'new');
        // Something puts a file where deep/ must go after the checks: data/ is swapped by then.
        await writeFile(join(out, 'deep'), 'in the way');
      },
    };
    await expect(writeOutputDirectory(out, marked, blocked)).rejects.toThrow(/EEXIST|ENOTDIR/);
    expect(readFileSync(join(out, 'data', 'file'), 'utf8')).toBe('old');
    expect(readFileSync(join(out, 'mark'), 'utf8')).toBe('old');
    expect(readdirSync(root)).toEqual(['out']);
  });

  it('refuses staged files outside the owned entries, writing nothing', async () => {
    const out = join(root, 'out');
    const stray: OutputWrite = {
      owned: ['mark'],
      stage: async (dir) => writeFile(join(dir, 'stray'), ''),
    };
    await expect(writeOutputDirectory(out, marked, stray)).rejects.toThrow(
      'staged stray is not among the entries the writer owns (mark)',
    );
    expect(readdirSync(root)).toEqual([]);
  });
});

/** Every file, directory and link below `dir` (links not followed), with what it holds. */
function snapshot(dir: string, into = new Map<string, string>(), rel = ''): Map<string, string> {
  for (const name of readdirSync(join(dir, rel))) {
    const path = rel === '' ? name : `${rel}/${name}`;
    const stat = lstatSync(join(dir, path));
    if (stat.isSymbolicLink()) into.set(path, `link ${readlinkSync(join(dir, path))}`);
    else if (stat.isDirectory()) {
      into.set(path, 'dir');
      snapshot(dir, into, path);
    } else into.set(path, `file ${readFileSync(join(dir, path), 'utf8')}`);
  }
  return into;
}

const inside = (outer: string, inner: string): boolean => {
  const rel = relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep));
};

describe('writeOutputDirectory, property: the input and the current directory survive any output path', () => {
  // Fixture dirs, three levels below the sandbox so that three `..` never leave it.
  const dirs = ['', 'a', 'a/b', 'a/b/in', 'c'];
  const link = fc.record({
    at: fc.constantFrom('', 'a', 'a/b', 'c'),
    name: fc.constantFrom('l1', 'l2'),
    to: fc.constantFrom(...dirs),
    relativeTarget: fc.boolean(),
  });
  const segment = fc.constantFrom('a', 'b', 'c', 'in', 'l1', 'l2', '..', '.', 'new');
  const path = fc
    .array(segment, { minLength: 1, maxLength: 5 })
    .filter((parts) => parts.filter((p) => p === '..').length <= 3);

  it('never changes anything but the owned entries of a directory that is neither the input, the current directory nor holds them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(link, { maxLength: 4 }),
        path,
        fc.boolean(),
        async (links, parts, relativeOut) => {
          const sandbox = mkdtempSync(join(root, 's-'));
          const base = join(sandbox, 'x', 'y', 'z');
          for (const d of dirs) mkdirSync(join(base, d), { recursive: true });
          put(join(base, 'a/b/in/keep'), 'input');
          put(join(base, 'c/keep'), 'other');
          for (const l of links) {
            const where = join(base, l.at, l.name);
            if (existsSync(where) || lstatSync(join(base, l.at)).isSymbolicLink()) continue;
            symlinkSync(
              l.relativeTarget ? relative(join(base, l.at), join(base, l.to)) || '.' : join(base, l.to),
              where,
            );
          }
          const before = snapshot(sandbox);
          const input = join(base, 'a/b/in');
          // As typed: `..` after a link is the kernel's to resolve, so the path is never normalised here. A
          // relative path is taken from `c` as the current directory, which holds no input but is refused too.
          const out = relativeOut ? parts.join(sep) : `${base}${sep}${parts.join(sep)}`;
          const cwd = process.cwd();
          if (relativeOut) process.chdir(join(base, 'c'));
          const owned: OutputWrite = {
            owned: ['in', 'keep', 'b'],
            stage: async (dir) => writeFile(join(dir, 'keep'), 'written'),
          };
          let written: string | undefined;
          let real: string | undefined;
          try {
            written = await writeOutputDirectory(out, anything, owned, {
              inputs: [{ name: '--input', path: input }],
            });
            real = realpathSync(out);
          } catch (err) {
            if ((err as { code?: string }).code !== 'OUTPUT_DIRECTORY_REFUSED') throw err;
          } finally {
            process.chdir(cwd);
          }
          expect(readFileSync(join(input, 'keep'), 'utf8')).toBe('input');
          const after = snapshot(sandbox);
          if (written === undefined || real === undefined) {
            expect(after).toEqual(before);
            return;
          }
          expect(real).toBe(written);
          expect(inside(real, realpathSync(input))).toBe(false);
          if (relativeOut) expect(inside(real, join(base, 'c'))).toBe(false);
          expect(readFileSync(join(real, 'keep'), 'utf8')).toBe('written');
          const changed = (p: string) =>
            !inside(join(real, 'keep'), join(sandbox, p)) &&
            !inside(join(real, 'in'), join(sandbox, p)) &&
            !inside(join(real, 'b'), join(sandbox, p));
          for (const [p, what] of before) if (changed(p)) expect(after.get(p), p).toBe(what);
        },
      ),
      { seed: 20261206, numRuns: 100 },
    );
  });
});
