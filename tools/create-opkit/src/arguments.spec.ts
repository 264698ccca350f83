import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HELP, parseCommand } from './arguments.js';
import { createWorkspace, packageNameOf, presetArguments } from './create-workspace.js';

describe('the command line', () => {
  it('parses every example of --help', () => {
    const examples = HELP.split('\n')
      .filter((line) => line.startsWith('  $ npm create opkit@latest '))
      .map((line) => line.replace('  $ npm create opkit@latest ', '').replace(' -- ', ' ').split(' '));
    expect(examples).toHaveLength(3);
    for (const args of examples) expect(parseCommand(args).kind, args.join(' ')).toBe('create');
    expect(
      parseCommand([
        'my-operators',
        '--operator',
        'postgres-lite',
        '--api',
        'db.acme.io/v1alpha1/PostgresInstance',
      ]),
    ).toEqual({
      kind: 'create',
      options: {
        directory: 'my-operators',
        operator: 'postgres-lite',
        api: 'db.acme.io/v1alpha1/PostgresInstance',
        skipInstall: false,
      },
    });
    expect(parseCommand(['--help'])).toEqual({ kind: 'help' });
  });

  it('refuses what the generators would refuse, before anything is written', () => {
    expect(() => parseCommand([])).toThrow('name the directory to create');
    expect(() => parseCommand(['a', 'b'])).toThrow('one directory only, got also b');
    expect(() => parseCommand(['a', '--api', 'db.acme.io/v1/Thing'])).toThrow('--api needs --operator');
    expect(() => parseCommand(['a', '--operator', 'db', '--api', 'cache/v1/Thing'])).toThrow(
      /api group "cache": a DNS subdomain with at least one dot/,
    );
    expect(() => parseCommand(['a', '--domain', 'localhost'])).toThrow('--domain "localhost"');
    expect(() => parseCommand(['a', '--registry', 'x'])).toThrow(/Unknown option '--registry'/);
  });

  it('names the workspace package after its directory', () => {
    expect(packageNameOf('/tmp/My Operators')).toBe('my-operators');
    expect(packageNameOf('/tmp/.hidden')).toBe('hidden');
  });

  it('passes the options on to the preset, which never installs by itself', () => {
    expect(
      presetArguments({ directory: 'x', operator: 'db', domain: 'acme.io', skipInstall: false }, 'x'),
    ).toEqual([
      'g',
      '@opkit/nx:preset',
      '--name=x',
      '--operator=db',
      '--domain=acme.io',
      '--skipInstall',
      '--no-interactive',
    ]);
  });
});

describe('--skip-install', () => {
  let scratch = '';
  afterEach(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('writes package.json only, installs nothing and prints the commands that finish the job', async () => {
    scratch = mkdtempSync(join(tmpdir(), 'create-opkit-skip-'));
    const directory = join(scratch, 'ops');
    let installed = false;
    const next = await createWorkspace(
      { directory, operator: 'db', skipInstall: true },
      {
        install: async () => {
          installed = true;
        },
        run: async () => {},
        log: () => {},
      },
    );
    expect(installed).toBe(false);
    expect(readdirSync(directory)).toEqual(['package.json']);
    expect(JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')).workspaces).toEqual([
      'operators/*',
    ]);
    expect(next.slice(1)).toEqual([
      'npm install',
      'npx nx g @opkit/nx:preset --name=ops --operator=db --skipInstall --no-interactive',
      'npm install',
      'npm test',
    ]);
    expect(existsSync(join(directory, 'nx.json'))).toBe(false);
  });
});
