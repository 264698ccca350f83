// The steps of `npm create opkit`: package.json with the plugin's versions, npm install, the plugin's preset.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { workspaceDependencies } from '@opkit/nx/versions';
import type { CreateOptions } from './arguments.js';

/** What can go wrong in a way the user can fix: printed as one line, without a stack. */
export class CreateError extends Error {}

/** How a step runs a program: streamed to the terminal, rejected with its command line on failure. */
export type RunCommand = (command: string, args: readonly string[], cwd: string) => Promise<void>;

export interface CreateSteps {
  /** Installs the workspace's packages (default: `npm install`, with the user's npm configuration). */
  readonly install: (directory: string) => Promise<void>;
  readonly run: RunCommand;
  readonly log: (line: string) => void;
}

export const runInherited: RunCommand = (command, args, cwd) =>
  new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, stdio: 'inherit' });
    child.on('error', (error) => fail(new CreateError(`${command}: ${error.message}`)));
    child.on('exit', (code, signal) =>
      code === 0
        ? done()
        : fail(new CreateError(`${[command, ...args].join(' ')} failed (${signal ?? code})`)),
    );
  });

/**
 * `npm install` by the npm that runs `npm create` (npm_execpath), else the npm on the PATH. The environment
 * is inherited, so the user's registry, userconfig and the like apply; its output streams to the terminal.
 */
export function npmInstall(run: RunCommand): (directory: string) => Promise<void> {
  return (directory) => {
    const args = ['install', '--no-audit', '--no-fund'];
    const npm = process.env.npm_execpath;
    return npm && /npm-cli\.js$/.test(npm)
      ? run(process.execPath, [npm, ...args], directory)
      : run('npm', args, directory);
  };
}

/** A package name from the directory's name: lower case, other characters than [a-z0-9._-] as '-'. */
export function packageNameOf(directory: string): string {
  const name = basename(resolve(directory))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+/, '');
  return name === '' ? 'operators' : name;
}

function refuseNonEmpty(directory: string): void {
  if (existsSync(directory) && readdirSync(directory).length > 0) {
    throw new CreateError(`${directory} is not empty: name a new or empty directory`);
  }
}

/** The preset's arguments, as `nx g @opkit/nx:preset` takes them. */
export function presetArguments(o: CreateOptions, name: string): string[] {
  return [
    'g',
    '@opkit/nx:preset',
    `--name=${name}`,
    ...(o.operator ? [`--operator=${o.operator}`] : []),
    ...(o.api ? [`--api=${o.api}`] : []),
    ...(o.domain ? [`--domain=${o.domain}`] : []),
    '--skipInstall',
    '--no-interactive',
  ];
}

/**
 * Undoes a failed run, so that the same command can run again: the directories it made (the topmost one it
 * made, with all in it), or, in a directory that was there and empty, what is in it now, all of it written by
 * this run's steps.
 */
function removeWritten(directory: string, made: string | undefined, log: (line: string) => void): void {
  if (made) {
    rmSync(made, { recursive: true, force: true });
    log(`removed ${relative(process.cwd(), made) || '.'}, which this run made`);
    return;
  }
  const written = readdirSync(directory);
  for (const entry of written) rmSync(join(directory, entry), { recursive: true, force: true });
  if (written.length > 0) {
    log(`removed what this run wrote in ${relative(process.cwd(), directory) || '.'}: ${written.join(', ')}`);
  }
}

/** Makes the workspace; returns the lines of what to do next. On failure it removes what it wrote. */
export async function createWorkspace(o: CreateOptions, steps: CreateSteps): Promise<string[]> {
  const directory = resolve(o.directory);
  refuseNonEmpty(directory);
  const made = mkdirSync(directory, { recursive: true });
  try {
    return await writeWorkspace(directory, o, steps);
  } catch (error) {
    removeWritten(directory, made, steps.log);
    throw error;
  }
}

async function writeWorkspace(directory: string, o: CreateOptions, steps: CreateSteps): Promise<string[]> {
  const name = packageNameOf(directory);
  const { dependencies, devDependencies } = workspaceDependencies();
  const packageJson = {
    name,
    version: '0.0.0',
    private: true,
    type: 'module',
    workspaces: ['operators/*'],
    dependencies,
    devDependencies,
  };
  writeFileSync(join(directory, 'package.json'), `${JSON.stringify(packageJson, null, 2)}\n`);
  const shown = relative(process.cwd(), directory) || '.';
  const preset = `npx nx ${presetArguments(o, name).join(' ')}`;
  if (o.skipInstall) {
    steps.log(`wrote ${join(shown, 'package.json')}`);
    return [`cd ${shown}`, 'npm install', preset, ...(o.operator ? ['npm install'] : []), 'npm test'];
  }
  steps.log(`installing the opkit packages in ${shown} (npm install)`);
  await steps.install(directory);
  const nx = join(directory, 'node_modules', '.bin', 'nx');
  if (!existsSync(nx)) throw new CreateError(`npm install left no ${relative(process.cwd(), nx)}`);
  steps.log('writing the workspace (nx g @opkit/nx:preset)');
  await steps.run(nx, presetArguments(o, name), directory);
  // The new operator is a workspace package: the lock file records it.
  if (o.operator) await steps.install(directory);
  const project = o.operator;
  return [
    `cd ${shown}`,
    'npm test                                  # lint, type checks, unit tests',
    ...(project
      ? o.api
        ? [`npx nx run ${project}:test:unit`]
        : [`npx nx g @opkit/nx:api <group>/<version>/<Kind> --project ${project}`]
      : ['npx nx g @opkit/nx:operator <name>']),
    'npx nx run bundle:build                   # every operator’s OLM bundle',
  ];
}
