import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
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
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { minimumNode } from '../bin/require-node.js';

const cliDir = fileURLToPath(new URL('..', import.meta.url));
const workspaceRoot = join(cliDir, '..', '..');
const scratch: string[] = [];

afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A copy of the `opkit` bin whose package requires `engines`, and whose program (`dist/main.js`) only leaves
 * a mark that it was loaded. Runs it on this Node.
 */
function runBin(engines: string) {
  const dir = mkdtempSync(join(tmpdir(), 'opkit-bin-'));
  scratch.push(dir);
  mkdirSync(join(dir, 'bin'));
  mkdirSync(join(dir, 'dist'));
  for (const file of ['opkit.js', 'require-node.js'])
    copyFileSync(join(cliDir, 'bin', file), join(dir, 'bin', file));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', engines: { node: engines } }));
  const mark = join(dir, 'loaded');
  writeFileSync(
    join(dir, 'dist', 'main.js'),
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(mark)}, 'yes');\n`,
  );
  const result = spawnSync(process.execPath, [join(dir, 'bin', 'opkit.js'), '--help'], {
    encoding: 'utf8',
    env: { ...process.env, NODE_COMPILE_CACHE: join(dir, 'compile-cache') },
  });
  return { status: result.status, stderr: result.stderr, loaded: existsSync(mark) };
}

describe('the bin on an older Node than engines allows', () => {
  it('stops with one line naming both versions, before it loads the program', () => {
    const [major] = process.versions.node.split('.').map(Number);
    const run = runBin(`>=${(major ?? 0) + 1}.2`);

    expect(run).toEqual({
      status: 1,
      stderr: `opkit needs Node.js ${(major ?? 0) + 1}.2 or later; this is ${process.version}\n`,
      loaded: false,
    });
  });

  it('runs the program on this Node when engines allows it', () => {
    expect(runBin(`>=${process.versions.node}`)).toEqual({ status: 0, stderr: '', loaded: true });
  });

  it('names the package.json when engines.node is not a plain lower bound', () => {
    const dir = mkdtempSync(join(tmpdir(), 'opkit-engines-'));
    scratch.push(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ engines: { node: '^22 || >=24' } }));

    expect(() => minimumNode(new URL(`file://${join(dir, 'package.json')}`))).toThrow(
      `${join(dir, 'package.json')}: engines.node must be ">=MAJOR.MINOR[.PATCH]", got "^22 || >=24"`,
    );
  });
});

describe('engines', () => {
  it('is the same in every package of the workspace', () => {
    const folders = ['libs', 'operators', 'tools', 'test'].flatMap((group) =>
      readdirSync(join(workspaceRoot, group)).map((name) => join(group, name)),
    );
    const packages = ['', ...folders].filter((p) => existsSync(join(workspaceRoot, p, 'package.json')));
    const engines = Object.fromEntries(
      packages.map((p) => [
        p || '.',
        (JSON.parse(readFileSync(join(workspaceRoot, p, 'package.json'), 'utf8')) as { engines?: unknown })
          .engines,
      ]),
    );

    expect(Object.keys(engines)).toContain('tools/opkit');
    for (const [path, value] of Object.entries(engines))
      expect([path, value]).toEqual([path, { node: '>=22.19' }]);
  });
});
