// Which lane of `npm test` runs each test file, and which test files need the machine's one real node: what
// test-lanes.spec.ts checks, so that no test starts a second real node beside the node lane's. The lanes are
// tools/test-run/lanes.mjs's Nx tasks; a task's vitest projects are its command lines' `--project` filters; a
// project's files are its vitest configuration's `include` and `exclude`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, matchesGlob, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { configDefaults } from 'vitest/config';
import { compareText, readJson, toPosix, type WorkspacePackage } from './workspace.js';

/** `node` runs the tasks that need the real node one after another; `other` runs the rest beside it. */
export type Lane = 'node' | 'other';

/** The Nx test tasks of each lane (`<project>:test` or `<project>:test:<configuration>`), as lanes.mjs lists them. */
export interface LanePlan {
  readonly realNodeSuites: readonly string[];
  readonly noRealNodeSuites: readonly string[];
}

/** Reads tools/test-run/lanes.mjs, the list run.mjs runs. */
export async function readLanePlan(root: string): Promise<LanePlan> {
  const module: unknown = await import(pathToFileURL(join(root, 'tools', 'test-run', 'lanes.mjs')).href);
  const list = (name: string): string[] => {
    const value = (module as Record<string, unknown>)[name];
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
      throw new Error(`tools/test-run/lanes.mjs: ${name} is not a list of Nx tasks`);
    return value;
  };
  return { realNodeSuites: list('REAL_NODE_SUITES'), noRealNodeSuites: list('NO_REAL_NODE_SUITES') };
}

/** One vitest project of a package's `vitest.config.ts`, as far as the lanes care. */
export interface VitestProject {
  readonly name: string;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  readonly globalSetup: readonly string[];
}

const DEFAULT_INCLUDE = ['**/*.{test,spec}.?(c|m)[jt]s?(x)'];

interface TestOptions {
  readonly name?: string;
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
  readonly globalSetup?: string | readonly string[];
  readonly projects?: ReadonlyArray<{ readonly test?: TestOptions }>;
}

/** The vitest projects of the package in `dir` (one, unnamed, for a configuration without `projects`). */
export async function vitestProjects(dir: string): Promise<VitestProject[]> {
  const file = join(dir, 'vitest.config.ts');
  // A vitest configuration module's default export is its configuration object.
  const config = (await import(pathToFileURL(file).href)) as { default: { test?: TestOptions } };
  const root = config.default.test ?? {};
  const entries = root.projects?.map((p) => p.test ?? {}) ?? [root];
  return entries.map((test) => ({
    name: test.name ?? '',
    include: test.include ?? root.include ?? DEFAULT_INCLUDE,
    exclude: test.exclude ?? root.exclude ?? configDefaults.exclude,
    globalSetup: [test.globalSetup ?? []].flat(),
  }));
}

/** Whether `file` (relative to the package, `/` separators) is one of `project`'s test files. */
export function inProject(file: string, project: VitestProject): boolean {
  return (
    project.include.some((glob) => matchesGlob(file, glob)) &&
    !project.exclude.some((glob) => matchesGlob(file, glob))
  );
}

/**
 * The `--project` filters of a command line that runs vitest, or undefined for any other command; none means
 * every project.
 */
export function vitestFilters(command: string): string[] | undefined {
  const words = command.split(/\s+/).map((word) => word.replace(/^(['"])(.*)\1$/, '$2'));
  if (!words.includes('vitest')) return undefined;
  const filters: string[] = [];
  words.forEach((word, i) => {
    if (word === '--project' && words[i + 1] !== undefined) filters.push(words[i + 1] as string);
    else if (word.startsWith('--project=')) filters.push(word.slice('--project='.length));
  });
  return filters;
}

/** Whether vitest's `--project` filters select the project `name`: `*` wildcards, `!` leaves out. */
export function selects(filters: readonly string[], name: string): boolean {
  if (filters.length === 0) return true;
  return filters.some((filter) => {
    const negated = filter.startsWith('!');
    const pattern = (negated ? filter.slice(1) : filter)
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    return new RegExp(negated ? `^(?!${pattern}$)` : `^${pattern}$`, 'i').test(name);
  });
}

/** The command lines an Nx task of a package runs: its configuration's, else the target's own. */
export function taskCommands(manifest: Record<string, unknown>, task: string): string[] {
  const [, target = '', configuration] = task.split(':');
  const nx = manifest.nx as { targets?: Record<string, TargetOptions> } | undefined;
  const definition = nx?.targets?.[target];
  if (definition === undefined) throw new Error(`${task}: the package has no ${target} target`);
  const chosen = configuration === undefined ? undefined : definition.configurations?.[configuration];
  if (configuration !== undefined && chosen === undefined)
    throw new Error(`${task}: the ${target} target has no configuration ${configuration}`);
  const lines = (o: CommandOptions | undefined) =>
    o?.command !== undefined ? [o.command] : o?.commands?.map((c) => (typeof c === 'string' ? c : c.command));
  return lines(chosen) ?? lines(definition.options) ?? [];
}

interface CommandOptions {
  readonly command?: string;
  readonly commands?: ReadonlyArray<string | { readonly command: string }>;
}
interface TargetOptions {
  readonly options?: CommandOptions;
  readonly configurations?: Record<string, CommandOptions>;
}

/**
 * The lane that runs a vitest project of the Nx project `nxName`, or undefined when no lane does. Projects the
 * node lane has no task of run whole in the other lane (`run-many -t test`).
 */
export function laneOf(
  plan: LanePlan,
  nxName: string,
  manifest: Record<string, unknown>,
  project: string,
): Lane | undefined {
  const ofProject = (suites: readonly string[]) => suites.filter((s) => s.split(':')[0] === nxName);
  const runs = (suites: readonly string[]) =>
    ofProject(suites).some((suite) =>
      taskCommands(manifest, suite).some((command) => {
        const filters = vitestFilters(command);
        return filters !== undefined && selects(filters, project);
      }),
    );
  if (ofProject(plan.realNodeSuites).length === 0) return 'other';
  if (runs(plan.realNodeSuites)) return 'node';
  return runs(plan.noRealNodeSuites) ? 'other' : undefined;
}

/** Whether the node lane runs only part of the Nx project's tests (a `real-node` configuration, not all). */
function splitByLane(plan: LanePlan, nxName: string): boolean {
  return plan.realNodeSuites.some((suite) => suite.split(':')[0] === nxName && suite.split(':').length > 2);
}

/** The global setup that shares one cluster with a real node across a project's files (or one with Prometheus). */
const REAL_NODE_SETUP = /(^|\/)testing\/(global|prometheus)-setup\.[cm]?[jt]s$/;

/** Why the files of `project` need the real node, or undefined. */
export function sharedRealNode(project: VitestProject): string | undefined {
  const setup = project.globalSetup.find((file) => REAL_NODE_SETUP.test(toPosix(file)));
  return setup === undefined ? undefined : `its project shares the real-node cluster (${basename(setup)})`;
}

/**
 * TypeScript without its comments and with its strings emptied, so that neither a comment nor a string naming
 * `startCluster()` is taken for a call.
 */
function codeOnly(source: string): string {
  return source.replace(
    /\/\*[\s\S]*?\*\/|\/\/[^\n]*|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`/g,
    (token) => (token.startsWith('/') ? '' : `${token[0]}${token[0]}`),
  );
}

/** The `startCluster(…)` calls in the code of `source` that start a real node: all but those that say `realNode: false`. */
export function realNodeStarts(source: string): string[] {
  const code = codeOnly(source);
  const calls: string[] = [];
  for (const match of code.matchAll(/(?<!function\s+)\bstartCluster\s*\(/g)) {
    let depth = 0;
    let end = match.index + match[0].length - 1;
    for (; end < code.length; end++) {
      if (code[end] === '(') depth++;
      else if (code[end] === ')' && --depth === 0) break;
    }
    const call = code.slice(match.index, end + 1).replace(/\s+/g, ' ');
    if (!/\brealNode\s*:\s*false\b/.test(call)) calls.push(call);
  }
  return calls;
}

/**
 * The test kit's helpers that only work on a cluster with a real node, used in `source`: they push images to
 * its registry or look for pod processes on this machine.
 */
export function realNodeHelpers(source: string): string[] {
  const code = codeOnly(source);
  const helpers = ['deployOperator', 'pushOperatorImage', 'podProcesses'].filter((name) =>
    new RegExp(`\\b${name}\\s*\\(`).test(code),
  );
  return /\binject\(\s*['"]opkitRegistry['"]\s*\)/.test(source)
    ? [...helpers, "inject('opkitRegistry')"]
    : helpers;
}

/**
 * Why a test file needs a real node, or undefined: a `startCluster` call without `realNode: false`, or a helper
 * that needs one ({@link realNodeHelpers}), in it or in a module of its package's `test/` folder that it imports
 * or names (a fixture it runs as a process).
 */
export function needsRealNode(packageDir: string, file: string): string | undefined {
  const testDir = join(packageDir, 'test');
  const seen = new Set<string>();
  const queue = [join(packageDir, file)];
  while (queue.length > 0) {
    const module = queue.shift() as string;
    if (seen.has(module) || !existsSync(module)) continue;
    seen.add(module);
    const source = readFileSync(module, 'utf8');
    const where = module === join(packageDir, file) ? '' : ` in ${toPosix(relative(packageDir, module))}`;
    const [call] = realNodeStarts(source);
    if (call !== undefined) return `it calls ${call.length > 80 ? `${call.slice(0, 77)}...` : call}${where}`;
    const [helper] = realNodeHelpers(source);
    if (helper !== undefined) return `it uses ${helper}${where}, which needs the real node`;
    for (const [, specifier = ''] of source.matchAll(/from\s+['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = resolve(dirname(module), specifier.replace(/\.js$/, '.ts'));
      if (target.startsWith(testDir)) queue.push(target);
    }
    for (const [, name = ''] of source.matchAll(/['"]([\w.-]+\.ts)['"]/g)) {
      queue.push(...filesNamed(testDir, name));
    }
  }
  return undefined;
}

function filesNamed(dir: string, name: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name === name)
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The test files of a package (`*.spec.ts` outside node_modules and dist), relative to it, sorted. */
export function specFiles(packageDir: string): string[] {
  return readdirSync(packageDir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.spec.ts'))
    .map((entry) => toPosix(relative(packageDir, join(entry.parentPath, entry.name))))
    .filter((file) => !/(^|\/)(node_modules|dist)\//.test(file))
    .sort(compareText);
}

/** A test file that needs the real node in a project the node lane does not run, or a project no lane runs. */
export interface LaneProblem {
  readonly file: string;
  readonly problem: string;
}

/** Every test file of the workspace's packages that would run in the wrong lane, or in none. */
export async function laneProblems(
  root: string,
  packages: readonly WorkspacePackage[],
  plan: LanePlan,
): Promise<LaneProblem[]> {
  const problems: LaneProblem[] = [];
  for (const pkg of packages) {
    const dir = join(root, pkg.dir);
    if (!existsSync(join(dir, 'vitest.config.ts'))) continue;
    const manifest = readJson(join(dir, 'package.json'));
    const nxName = (manifest.nx as { name?: string } | undefined)?.name ?? pkg.name;
    const projects = await vitestProjects(dir);
    for (const file of specFiles(dir)) {
      const path = `${pkg.dir}/${file}`;
      for (const project of projects.filter((p) => inProject(file, p))) {
        const lane = laneOf(plan, nxName, manifest, project.name);
        if (lane === undefined) {
          problems.push({ file: path, problem: `no lane of npm test runs vitest project '${project.name}'` });
          continue;
        }
        const reason = sharedRealNode(project) ?? needsRealNode(dir, file);
        if (reason !== undefined && lane === 'other') {
          problems.push({
            file: path,
            problem: `needs the real node (${reason}), but its vitest project '${project.name}' runs in the other lane, beside the real-node one`,
          });
        } else if (reason === undefined && lane === 'node' && splitByLane(plan, nxName)) {
          problems.push({
            file: path,
            problem: `starts no real node, but its vitest project '${project.name}' runs in the node lane, which runs one project after another: leave it out of realNodeSpecs`,
          });
        }
      }
    }
  }
  return problems;
}
