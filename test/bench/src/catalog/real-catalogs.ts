// Real file-based catalogs for `bench:catalog`: the community catalogs of OpenShift releases (`catalogs/v4.12` …
// `catalogs/v4.16` of the community operators' production repository), found in a directory or extracted from a
// git directory of that repository. Nothing is downloaded: without them the benchmark runs its synthetic
// catalogs only, and says how to get them.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The catalogs raced by default: the releases whose community catalogs users install from. */
export const DEFAULT_REAL_VERSIONS: readonly string[] = ['v4.12', 'v4.13', 'v4.14', 'v4.15', 'v4.16'];

/** The option and environment variable that name where the real catalogs are. */
export const REAL_CATALOGS_OPTION = '--real-catalogs';
export const REAL_CATALOGS_ENV = 'OPKIT_BENCH_REAL_CATALOGS';

/** How to get the real catalogs, printed when they are not given. */
export const REAL_CATALOGS_HELP =
  `real catalogs: none given, racing the synthetic catalogs only. To race the community catalogs too, clone ` +
  `https://github.com/redhat-openshift-ecosystem/community-operators-prod (a bare or shallow clone will do) and ` +
  `pass its directory or git directory: ${REAL_CATALOGS_OPTION}=<dir> or ${REAL_CATALOGS_ENV}=<dir>. A ` +
  `directory holding v4.12 … v4.16 (or catalogs/v4.12 …) catalog directories works too.`;

/** One real catalog ready to race, and what it holds. */
export interface RealCatalog {
  readonly version: string;
  readonly dir: string;
  readonly files: number;
  readonly bytes: number;
  /** Files the git directory lists but does not hold (a partial clone): left out of the catalog. */
  readonly missing: readonly string[];
}

/** Whether `path` is a git directory: a bare repository or a checkout's `.git`. */
function isGitDir(path: string): boolean {
  return existsSync(join(path, 'HEAD')) && existsSync(join(path, 'objects'));
}

/** The git directory of `source` (a git directory, or a checkout whose `.git` is one), if it is either. */
export function gitDirOf(source: string): string | undefined {
  if (isGitDir(source)) return source;
  return isGitDir(join(source, '.git')) ? join(source, '.git') : undefined;
}

/**
 * The newest `count` commits that changed `catalogs/<version>`, newest first, each with its first parent: the
 * consecutive revisions of the catalog that a release gate compares.
 */
export function catalogRevisions(
  gitDir: string,
  version: string,
  count: number,
): { readonly revision: string; readonly parent: string; readonly subject: string }[] {
  const out = execFileSync(
    'git',
    [
      '--git-dir',
      gitDir,
      'log',
      '-z',
      `-${count}`,
      '--format=%H %P%n%s',
      'HEAD',
      '--',
      `catalogs/${version}`,
    ],
    { encoding: 'utf8', maxBuffer: 16 << 20 },
  );
  return out
    .split('\0')
    .filter((record) => record !== '')
    .map((record) => {
      const [ids = '', subject = ''] = record.split('\n');
      const [revision = '', parent = ''] = ids.split(' ');
      return { revision, parent, subject };
    })
    .filter((r) => r.parent !== '');
}

/**
 * Where a catalog version lies in a directory: `<root>/<version>` or `<root>/catalogs/<version>`, or, for a
 * checkout, its git directory is used.
 */
function catalogDirIn(root: string, version: string): string | undefined {
  for (const dir of [join(root, version), join(root, 'catalogs', version)]) {
    if (existsSync(dir) && statSync(dir).isDirectory()) return dir;
  }
  return undefined;
}

/** Lines of `git ls-tree -r` of `catalogs/<version>` at `revision`: mode, type, object id and path. */
function listTree(gitDir: string, version: string, revision: string): { id: string; path: string }[] {
  const out = execFileSync(
    'git',
    ['--git-dir', gitDir, 'ls-tree', '-r', '-z', revision, `catalogs/${version}`],
    {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    },
  );
  return out
    .split('\0')
    .filter((line) => line !== '')
    .map((line) => {
      const [meta = '', path = ''] = line.split('\t');
      const [, type, id = ''] = meta.split(' ');
      return { type, id, path };
    })
    .filter((e) => e.type === 'blob')
    .map(({ id, path }) => ({ id, path }));
}

/** Whether the object is in the repository (a partial or filtered clone may list blobs it lacks). */
function hasObject(gitDir: string, id: string): boolean {
  try {
    execFileSync('git', ['--git-dir', gitDir, 'cat-file', '-e', id], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Extracts `catalogs/<version>` at `revision` of `gitDir` into `<into>/<version>`, without the blobs it lacks.
 */
export function extractCatalog(
  gitDir: string,
  version: string,
  into: string,
  revision = 'HEAD',
): RealCatalog {
  const dir = join(into, version);
  const prefix = `catalogs/${version}/`;
  let files = 0;
  let bytes = 0;
  const missing: string[] = [];
  for (const { id, path } of listTree(gitDir, version, revision)) {
    const rel = path.slice(prefix.length);
    if (!hasObject(gitDir, id)) {
      missing.push(rel);
      continue;
    }
    const content = execFileSync('git', ['--git-dir', gitDir, 'cat-file', 'blob', id], {
      maxBuffer: 1 << 30,
    });
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), content);
    files++;
    bytes += content.length;
  }
  return { version, dir, files, bytes, missing };
}

/** Files and bytes below a directory. */
function sizeOf(dir: string): { files: number; bytes: number } {
  const out = execFileSync('find', [dir, '-type', 'f', '-printf', '%s\\n'], { encoding: 'utf8' });
  const sizes = out.split('\n').filter((l) => l !== '');
  return { files: sizes.length, bytes: sizes.reduce((sum, s) => sum + Number(s), 0) };
}

/**
 * The real catalogs of `versions` from `source`: a directory holding them (as `<version>` or
 * `catalogs/<version>`), used in place, or a git directory (or a checkout whose `.git` is one), from which
 * each is extracted into `scratch`. Versions the source does not have are left out.
 *
 * @throws Error when `source` is neither
 */
export function realCatalogs(source: string, versions: readonly string[], scratch: string): RealCatalog[] {
  if (!existsSync(source)) throw new Error(`${REAL_CATALOGS_OPTION}: ${source} does not exist`);
  const gitDir = gitDirOf(source);
  const out: RealCatalog[] = [];
  for (const version of versions) {
    const dir = catalogDirIn(source, version);
    if (dir !== undefined) {
      out.push({ version, dir, ...sizeOf(dir), missing: [] });
    } else if (gitDir !== undefined) {
      const extracted = extractCatalog(gitDir, version, scratch);
      if (extracted.files > 0) out.push(extracted);
    }
  }
  if (out.length === 0) {
    throw new Error(
      `${REAL_CATALOGS_OPTION}: ${source} holds none of ${versions.join(', ')} (as <version>, catalogs/<version> or in git)`,
    );
  }
  return out;
}
