// The steps of `npm create opkit`, with the install and the preset replaced by recorders: the package.json it
// writes, the commands it runs in order, the directories it refuses, and what it removes when a step fails.
// The workspace these steps make is checked end to end in test/author: `npm create opkit` from a registry
// holding the published packages, then lint, type checks, the test tiers, bundle, catalog and an OLM install.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CreateError, type CreateSteps, createWorkspace } from './create-workspace.js';

const repo = join(import.meta.dirname, '..', '..', '..');
let scratch = '';

beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'create-opkit-'));
});
afterEach(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** Steps that record what they are asked to do; `failAt` names the step that fails. */
function recorder(failAt?: 'install' | 'preset') {
  const calls: string[] = [];
  const installs: string[] = [];
  const logged: string[] = [];
  const steps: CreateSteps = {
    install: async (dir) => {
      calls.push('install');
      installs.push(readFileSync(join(dir, 'package.json'), 'utf8'));
      mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
      writeFileSync(join(dir, 'package-lock.json'), '{}');
      if (failAt === 'install') throw new CreateError('npm install failed (1)');
      writeFileSync(join(dir, 'node_modules', '.bin', 'nx'), '');
    },
    run: async (command, args, cwd) => {
      calls.push(`${command.slice(cwd.length + 1)} ${args.join(' ')}`);
      writeFileSync(join(cwd, 'nx.json'), '{}');
      if (failAt === 'preset') throw new CreateError('nx g @opkit/nx:preset failed (1)');
    },
    log: (line) => logged.push(line),
  };
  return { steps, calls, installs, logged };
}

describe('npm create opkit', () => {
  it('installs a package.json with the plugin’s exact versions, runs the preset, then installs the operator', async () => {
    const workspace = join(scratch, 'acme-operators');
    const { steps, calls, installs } = recorder();
    const next = await createWorkspace(
      {
        directory: workspace,
        operator: 'postgres-lite',
        api: 'db.acme.io/v1alpha1/PostgresInstance',
        domain: 'acme.io',
        skipInstall: false,
      },
      steps,
    );
    const installed = JSON.parse(installs[0] ?? '{}') as {
      name: string;
      workspaces: string[];
      devDependencies: Record<string, string>;
    };
    expect(installed.name).toBe('acme-operators');
    expect(installed.workspaces).toEqual(['operators/*']);
    expect(installed.devDependencies['@opkit/nx']).toBe(
      JSON.parse(readFileSync(join(repo, 'tools/nx-plugin/package.json'), 'utf8')).version,
    );
    // once for the tools, once more to record the new operator package
    expect(calls).toEqual([
      'install',
      `${join('node_modules', '.bin', 'nx')} g @opkit/nx:preset --name=acme-operators --operator=postgres-lite --api=db.acme.io/v1alpha1/PostgresInstance --domain=acme.io --skipInstall --no-interactive`,
      'install',
    ]);
    expect(next).toContain('npx nx run postgres-lite:test:unit');
  });

  it('refuses a directory that is not empty, before writing anything', async () => {
    const used = join(scratch, 'used');
    mkdirSync(used);
    writeFileSync(join(used, 'notes.txt'), 'mine');
    await expect(createWorkspace({ directory: used, skipInstall: true }, recorder().steps)).rejects.toThrow(
      `${used} is not empty: name a new or empty directory`,
    );
    expect(existsSync(join(used, 'package.json'))).toBe(false);
  });

  it('removes the directory it made when a step fails, so the same command can run again', async () => {
    const workspace = join(scratch, 'new', 'acme');
    const { steps, logged } = recorder('install');
    await expect(createWorkspace({ directory: workspace, skipInstall: false }, steps)).rejects.toThrow(
      'npm install failed',
    );
    // `new` too: this run made it
    expect(existsSync(join(scratch, 'new'))).toBe(false);
    expect(logged.at(-1)).toMatch(/^removed .*new, which this run made$/);
    await createWorkspace({ directory: workspace, skipInstall: false }, recorder().steps);
    expect(existsSync(join(workspace, 'package.json'))).toBe(true);
  });

  it('in an empty directory that was there, removes what it wrote and keeps the directory', async () => {
    const workspace = join(scratch, 'acme');
    mkdirSync(workspace);
    const { steps, logged } = recorder('preset');
    await expect(createWorkspace({ directory: workspace, skipInstall: false }, steps)).rejects.toThrow(
      'preset failed',
    );
    expect(existsSync(workspace)).toBe(true);
    expect(readdirSync(workspace)).toEqual([]);
    expect(logged.at(-1)).toMatch(/^removed what this run wrote in .*acme: /);
    for (const name of ['package.json', 'node_modules', 'package-lock.json', 'nx.json']) {
      expect(logged.at(-1)).toContain(name);
    }
  });
});
