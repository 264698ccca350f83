// Every example in every command's --help is run: parsed out of the help, executed by bash with the built CLI
// as `opkit` on the PATH, in a temporary workspace holding copies of the repository's operators, bundles and
// catalog. An example that needs what this suite does not start (a cluster, a remote registry, a server that
// runs until stopped) is skipped, and the reason is part of the expected list below, so a new example is
// either run or its reason added here.
import { execFile } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { releasedData, workspaceRoot } from '@opkit/test-cluster';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProgram } from '../src/program.js';

const run = promisify(execFile);
const root = workspaceRoot;
const opkit = join(root, 'tools', 'opkit', 'bin', 'opkit.js');
const workspace = mkdtempSync(join(tmpdir(), 'opkit-examples-'));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

/** Every command of the tree with the words that run it. */
function commands(command: Command, path: string[] = []): Array<{ command: Command; path: string[] }> {
  return [{ command, path }, ...command.commands.flatMap((sub) => commands(sub, [...path, sub.name()]))];
}

/** The examples of a command's --help, each as one line (continuations joined). */
function helpExamples(command: Command): string[] {
  const out: string[] = [];
  command.configureOutput({ writeOut: (s) => out.push(s) });
  command.outputHelp();
  const help = out.join('');
  const section = help.slice(help.indexOf('\nExamples:\n'));
  return section
    .replace(/ \\\n\s+/g, ' ')
    .split('\n')
    .flatMap((line) => (/^ {2}\$ /.test(line) ? [line.slice(4).trim()] : []));
}

/** Why an example is not run here, or undefined to run it. */
function skipReason(example: string): string | undefined {
  const words = example.replace(/^[A-Z_]+=\S+ /, '').split(/\s+/);
  if (!words[0]?.startsWith('opkit')) return 'not an opkit command';
  const [, group = '', verb = ''] = words;
  if (group.startsWith('<')) return 'a placeholder';
  if (
    ['olm', 'run', 'cleanup', 'deploy', 'undeploy'].includes(group) ||
    `${group} ${verb}` === 'catalog publish'
  )
    return 'needs a cluster';
  if (`${group} ${verb}` === 'catalog serve') return 'serves until stopped';
  if (`${group} ${verb}` === 'image build') return 'pulls the Node base image from a registry';
  if (
    /(^|\s)(--image \S+ --use-image-digests|--use-image-digests)/.test(example) &&
    !example.includes('--images')
  )
    return 'resolves image digests in a registry';
  if (/(quay\.io|docker\.io|gcr\.io|registry\.example\.com|127\.0\.0\.1:\d+)\//.test(example))
    return 'names an image in a registry';
  if (/--platforms-from registry|name=multiarch/.test(example))
    return 'reads image platforms from a registry';
  return undefined;
}

beforeAll(async () => {
  // The repository's projects, and its node_modules for the operators' imports.
  for (const dir of ['operators/memcached', 'operators/redis']) {
    cpSync(join(root, dir), join(workspace, dir), {
      recursive: true,
      filter: (src) => !src.includes('node_modules') && !src.includes('/dist'),
    });
  }
  cpSync(releasedData.bundles, join(workspace, 'bundles'), { recursive: true });
  cpSync(join(root, 'catalog'), join(workspace, 'catalog'), {
    recursive: true,
    filter: (src) => !src.includes('node_modules'),
  });
  symlinkSync(join(root, 'node_modules'), join(workspace, 'node_modules'));
  // `catalog diff` examples read the catalog of the last commit (git:HEAD:catalog/configs): a repository of it.
  for (const args of [
    ['init', '-q'],
    ['add', 'catalog'],
    ['commit', '-q', '-m', 'catalog'],
  ]) {
    await run('git', ['-c', 'user.name=opkit', '-c', 'user.email=opkit@example.com', ...args], {
      cwd: workspace,
    });
  }
  // What examples read that earlier steps of a project write: a bundle of one's own and the catalog image.
  cpSync(releasedData.bundle('memcached-operator', '0.3.0'), join(workspace, 'bundle'), { recursive: true });
  const bin = join(workspace, '.bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'opkit'), `#!/bin/sh\nexec "${process.execPath}" "${opkit}" "$@"\n`);
  chmodSync(join(bin, 'opkit'), 0o755);
  // `bundle build-all`, an example of its own, runs before the examples that read its images.
  await exec('opkit catalog image catalog/configs --layout dist/images/opkit-catalog');
}, 180_000);

function exec(example: string) {
  return run('bash', ['-c', example], {
    cwd: workspace,
    env: { ...process.env, PATH: `${join(workspace, '.bin')}:${process.env.PATH}` },
    maxBuffer: 64 << 20,
    timeout: 120_000,
  });
}

describe('the examples of every --help', () => {
  const all = commands(createProgram()).flatMap(({ command, path }) =>
    helpExamples(command).map((example) => ({ where: ['opkit', ...path].join(' '), example })),
  );
  const skipped = all.flatMap(({ example }) => {
    const reason = skipReason(example);
    return reason === undefined ? [] : [`${example}: ${reason}`];
  });

  it('skips only examples that need a cluster, a registry or a server that keeps running', () => {
    const reasons = new Set(skipped.map((s) => s.slice(s.lastIndexOf(': ') + 2)));
    expect([...reasons].sort()).toEqual(
      [
        'a placeholder',
        'names an image in a registry',
        'not an opkit command',
        'needs a cluster',
        'pulls the Node base image from a registry',
        'reads image platforms from a registry',
        'resolves image digests in a registry',
        'serves until stopped',
      ].sort(),
    );
    // Every command that works on files has its examples run: 53 when this was written.
    expect(all.length - skipped.length).toBeGreaterThan(45);
  });

  const runnable = all.filter(({ example }) => skipReason(example) === undefined);
  it.each(runnable)('$where: $example', { timeout: 120_000 }, async ({ example }) => {
    const result = await exec(example).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(result.code, `${example}\n${result.stderr}`).toBe(0);
  });
});
