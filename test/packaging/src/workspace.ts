// The workspace as the figures see it: its root, its packages (from the root package.json's `workspaces`) and
// the source files of each package.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One npm workspace package. */
export interface WorkspacePackage {
  /** The name in its package.json. */
  readonly name: string;
  /** Its folder relative to the workspace root, with `/` separators (for example `libs/olm`). */
  readonly dir: string;
  /** Its package.json `exports`, as written. */
  readonly exports: unknown;
}

/** A source file of a package. */
export interface SourceFile {
  /** The path relative to the workspace root, with `/` separators. */
  readonly path: string;
  /** The path relative to the package's folder. */
  readonly inPackage: string;
  /** Shipped code: under src/ and not a test (`*.spec.ts`, `spec-fixtures.ts`); the rest is tests and build scripts. */
  readonly production: boolean;
}

const SOURCE_EXTENSIONS = /\.(?:ts|mts|cts|tsx|js|mjs|cjs)$/;
const DECLARATION_FILE = /\.d\.(?:ts|mts|cts)$/;
const TEST_FILE = /(?:\.spec\.[cm]?tsx?|(?:^|\/)spec-fixtures\.ts)$/;
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'coverage']);

/** The folder holding the root package.json that declares `workspaces`, searched upwards from `from`. */
export function findWorkspaceRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && 'workspaces' in readJson(manifest)) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json with "workspaces" above ${from}`);
  }
}

/** Every workspace package, sorted by folder. Patterns are folders or `folder/*`, as the root uses. */
export function workspacePackages(root: string): WorkspacePackage[] {
  const patterns = readJson(join(root, 'package.json')).workspaces;
  if (!Array.isArray(patterns)) throw new Error('the root package.json "workspaces" is not a list');
  const dirs: string[] = [];
  for (const pattern of patterns) {
    if (typeof pattern !== 'string') throw new Error(`workspace pattern ${String(pattern)} is not a string`);
    if (pattern.endsWith('/*')) {
      const parent = pattern.slice(0, -2);
      for (const entry of readdirSync(join(root, parent), { withFileTypes: true })) {
        if (entry.isDirectory()) dirs.push(`${parent}/${entry.name}`);
      }
    } else if (!pattern.includes('*')) {
      dirs.push(pattern);
    } else {
      throw new Error(`workspace pattern ${pattern} is not a folder or folder/*`);
    }
  }
  const packages: WorkspacePackage[] = [];
  for (const dir of dirs.sort()) {
    const manifest = join(root, dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const json = readJson(manifest);
    if (typeof json.name !== 'string') throw new Error(`${dir}/package.json has no name`);
    packages.push({ name: json.name, dir, exports: json.exports });
  }
  return packages;
}

/** The TypeScript and JavaScript sources of a package (no declaration files, nothing under node_modules or dist). */
export function packageSources(root: string, pkg: WorkspacePackage): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) walk(full);
      } else if (entry.isFile() && SOURCE_EXTENSIONS.test(entry.name) && !DECLARATION_FILE.test(entry.name)) {
        const path = toPosix(relative(root, full));
        const inPackage = path.slice(pkg.dir.length + 1);
        files.push({
          path,
          inPackage,
          production: inPackage.startsWith('src/') && !TEST_FILE.test(inPackage),
        });
      }
    }
  };
  walk(join(root, pkg.dir));
  return files.sort((a, b) => compareText(a.path, b.path));
}

/** Reads a JSON object. */
export function readJson(file: string): Record<string, unknown> {
  const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${file} does not hold a JSON object`);
  }
  return value as Record<string, unknown>;
}

export function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

/** Code-unit order, the same on every machine (no locale). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One entry of a package.json `exports` map. */
export interface EntryPoint {
  /** The subpath: `.`, `./cache`. */
  readonly entry: string;
  /** The TypeScript source it names (the `@opkit/source` condition, or a plain `.ts` target), from the package folder. */
  readonly source: string | undefined;
}

/** The entry points of a package's `exports` (a bare string counts as `.`), in the order written. */
export function entryPoints(pkg: WorkspacePackage): EntryPoint[] {
  const exports = pkg.exports;
  if (exports === undefined) return [];
  const map = typeof exports === 'string' ? { '.': exports } : (exports as Record<string, unknown>);
  return Object.entries(map).map(([entry, target]) => ({ entry, source: sourceTarget(target) }));
}

function sourceTarget(target: unknown): string | undefined {
  const path =
    typeof target === 'string'
      ? target
      : typeof target === 'object' && target !== null
        ? (target as Record<string, unknown>)['@opkit/source']
        : undefined;
  return typeof path === 'string' && /\.[cm]?tsx?$/.test(path) ? path.replace(/^\.\//, '') : undefined;
}
