// The versions `npm create opkit@<v>` writes stay those it was released with: in a copy of this repository, a
// release of @opkit/controller-runtime alone rewrites the plugin's version table and releases the plugin, and
// create-opkit is released with a dependency on that new plugin. No released manifest names a sibling package by
// "*": npm would resolve it to whatever is newest in the registry, not the version it was released with.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';

const exec = promisify(execFile);
const repo = join(import.meta.dirname, '..', '..', '..');
let copy = '';

const manifest = (dir: string) =>
  JSON.parse(readFileSync(join(copy, dir, 'package.json'), 'utf8')) as {
    version: string;
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };

beforeAll(async () => {
  copy = mkdtempSync(join(tmpdir(), 'create-opkit-release-'));
  // The checkout's files as git sees them (tracked and new, not ignored), in a repository of their own.
  await exec(
    'sh',
    [
      '-c',
      `git ls-files -z --cached --others --exclude-standard | tar -c --null -T - -f - | tar -x -C "${copy}" -f -`,
    ],
    { cwd: repo, maxBuffer: 64 * 1024 * 1024 },
  );
  symlinkSync(join(repo, 'node_modules'), join(copy, 'node_modules'));
  const git = (...args: string[]) => exec('git', args, { cwd: copy });
  await git('init', '-q');
  await git('add', '-A');
  await git('-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-qm', 'workspace');
}, 120_000);

afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

it('a release of a package the plugin writes releases the plugin and create-opkit with the new versions', async () => {
  const before = {
    runtime: manifest('libs/controller-runtime').version,
    plugin: manifest('tools/nx-plugin').version,
  };
  rmSync(join(copy, '.nx', 'version-plans'), { recursive: true, force: true });
  mkdirSync(join(copy, '.nx', 'version-plans'), { recursive: true });
  writeFileSync(
    join(copy, '.nx', 'version-plans', 'fix.md'),
    '---\ncontroller-runtime: patch\n---\n\nA fix.\n',
  );
  await exec(join(copy, 'node_modules', '.bin', 'nx'), ['release', '--skip-publish'], {
    cwd: copy,
    env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' },
    maxBuffer: 64 * 1024 * 1024,
  });
  const runtime = manifest('libs/controller-runtime').version;
  const plugin = manifest('tools/nx-plugin');
  expect(runtime).not.toBe(before.runtime);
  expect(plugin.peerDependencies?.['@opkit/controller-runtime']).toBe(runtime);
  expect(plugin.version).not.toBe(before.plugin);
  expect(manifest('tools/create-opkit').dependencies?.['@opkit/nx']).toBe(plugin.version);
  const nxJson = JSON.parse(readFileSync(join(copy, 'nx.json'), 'utf8')) as {
    release: { projects: string[] };
  };
  await exec(join(copy, 'node_modules', '.bin', 'nx'), ['graph', '--file=graph.json'], {
    cwd: copy,
    env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' },
    maxBuffer: 64 * 1024 * 1024,
  });
  const graph = JSON.parse(readFileSync(join(copy, 'graph.json'), 'utf8')) as {
    graph: { nodes: Record<string, { data: { root: string } }> };
  };
  const starred: string[] = [];
  for (const project of nxJson.release.projects) {
    const released = manifest(graph.graph.nodes[project]?.data.root ?? project);
    for (const [field, ranges] of Object.entries({
      dependencies: released.dependencies,
      peerDependencies: released.peerDependencies,
    })) {
      for (const [name, range] of Object.entries(ranges ?? {})) {
        if (name.startsWith('@opkit/') && range === '*') starred.push(`${project} ${field} ${name}`);
      }
    }
  }
  expect(starred).toEqual([]);
}, 120_000);
