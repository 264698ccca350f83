// `npm create opkit` on a real disk, outside this repository: the workspace it makes, with an operator and a
// kind, passes its own lint, type checks and unit tests and builds its bundle. The install step links this
// repository's node_modules (the opkit packages are its workspace packages there), so no registry is needed;
// everything else runs as a user runs it, through the workspace's own `nx`.
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createWorkspace, type RunCommand } from './create-workspace.js';

const exec = promisify(execFile);
const repo = join(import.meta.dirname, '..', '..', '..');
const nxEnv = {
  NX_DAEMON: 'false',
  NX_NO_CLOUD: 'true',
  NX_TUI: 'false',
  CI: 'true',
  NO_COLOR: '1',
  FORCE_COLOR: '0',
};

/** Runs a program, its output kept for the failure message. */
const run = async (command: string, args: readonly string[], cwd: string): Promise<string> => {
  try {
    const { stdout, stderr } = await exec(command, [...args], {
      cwd,
      env: { ...process.env, ...nxEnv },
      maxBuffer: 64 * 1024 * 1024,
    });
    return `${stdout}${stderr}`;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout}\n${stderr}`.slice(-20_000));
  }
};
const quiet: RunCommand = async (command, args, cwd) => {
  await run(command, args, cwd);
};

let scratch = '';
let workspace = '';
const installs: string[] = [];
const nx = (...args: string[]) => run(join(workspace, 'node_modules', '.bin', 'nx'), args, workspace);

beforeAll(async () => {
  // The packages' JavaScript, as npm installs it (a generated workspace uses no source condition).
  await run(
    join(repo, 'node_modules', '.bin', 'nx'),
    ['run-many', '-t', 'build', '-p', 'controller-runtime', 'controller-tools', '--outputStyle=static'],
    repo,
  );
  scratch = mkdtempSync(join(tmpdir(), 'create-opkit-'));
  workspace = join(scratch, 'acme-operators');
  const next = await createWorkspace(
    {
      directory: workspace,
      operator: 'postgres-lite',
      api: 'db.acme.io/v1alpha1/PostgresInstance',
      domain: 'acme.io',
      skipInstall: false,
    },
    {
      install: async (dir) => {
        installs.push(readFileSync(join(dir, 'package.json'), 'utf8'));
        if (!existsSync(join(dir, 'node_modules')))
          symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
      },
      run: quiet,
      log: () => {},
    },
  );
  expect(next).toContain('npx nx run postgres-lite:test:unit');
}, 180_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('npm create opkit', () => {
  it('installs a package.json with the plugin’s exact versions, then writes the rest with the preset', () => {
    const installed = JSON.parse(installs[0] ?? '{}') as {
      name: string;
      devDependencies: Record<string, string>;
    };
    expect(installed.name).toBe('acme-operators');
    expect(installed.devDependencies['@opkit/nx']).toBe(
      JSON.parse(readFileSync(join(repo, 'tools/nx-plugin/package.json'), 'utf8')).version,
    );
    // once for the tools, once more to record the new operator package
    expect(installs).toHaveLength(2);
    for (const file of [
      'nx.json',
      'tsconfig.base.json',
      'biome.json',
      '.gitignore',
      '.ci/run',
      'README.md',
    ]) {
      expect(existsSync(join(workspace, file)), file).toBe(true);
    }
    const crd = parse(
      readFileSync(
        join(workspace, 'operators/postgres-lite/config/crd/bases/db.acme.io_postgresinstances.yaml'),
        'utf8',
      ),
    ) as { spec: { names: { kind: string } } };
    expect(crd.spec.names.kind).toBe('PostgresInstance');
  });

  it('gives a workspace whose lint, type checks and unit tests pass as generated', async () => {
    const out = await nx('run-many', '-t', 'lint', 'typecheck', 'test', '-c', 'unit', '--outputStyle=static');
    expect(out).toMatch(/Successfully ran targets lint, typecheck, test/);
    expect(out).toContain('postgres-instance-controller.spec.ts');
    // the root files too, as written: formatted and lint-clean
    await run(join(workspace, 'node_modules', '.bin', 'biome'), ['check', '.'], workspace);
  }, 240_000);

  it('builds the operator’s bundle with the opkit command', async () => {
    await nx('run', 'postgres-lite:bundle', '--outputStyle=static');
    const csv = parse(
      readFileSync(
        join(
          workspace,
          'operators/postgres-lite/dist/bundle/manifests/postgres-lite-operator.clusterserviceversion.yaml',
        ),
        'utf8',
      ),
    ) as { metadata: { name: string }; spec: { customresourcedefinitions: { owned: { kind: string }[] } } };
    expect(csv.metadata.name).toBe('postgres-lite-operator.v0.1.0');
    expect(csv.spec.customresourcedefinitions.owned.map((c) => c.kind)).toEqual(['PostgresInstance']);
  }, 120_000);

  it('refuses a directory that is not empty, before writing anything', async () => {
    const used = join(scratch, 'used');
    mkdirSync(used);
    writeFileSync(join(used, 'notes.txt'), 'mine');
    await expect(
      createWorkspace(
        { directory: used, skipInstall: true },
        { install: async () => {}, run: quiet, log: () => {} },
      ),
    ).rejects.toThrow(`${used} is not empty: name a new or empty directory`);
    expect(existsSync(join(used, 'package.json'))).toBe(false);
  });
});
