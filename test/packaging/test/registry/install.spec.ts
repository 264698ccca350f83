// The packages as users get them from a registry: the workspace's publishable packages are built and
// published to a private registry (Verdaccio, no uplink) that also serves every third-party package of
// package-lock.json; a project outside the repository installs them from it alone and runs them on plain
// Node.js, with no TypeScript.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { workspaceRoot } from '@opkit/test-cluster';
import { type NpmRegistry, type PublishedPackage, startNpmRegistry } from '@opkit/test-cluster/npm-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);

/** The packages the repository publishes (create-opkit lives in its own directory and is published too). */
const PUBLISHED = [
  '@opkit/cli',
  '@opkit/controller-runtime',
  '@opkit/controller-tools',
  '@opkit/nx',
  '@opkit/oci',
  '@opkit/olm',
  '@opkit/test-cluster',
];

/** npm and node as a user's shell runs them: Node.js of this run first on the PATH, no `npm_*` settings. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== 'NODE_OPTIONS' && key !== 'OPKIT_FROM_SOURCE') env[key] = value;
  }
  return { ...env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };
}

async function run(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await exec(command, args, { cwd, env: userEnv(), maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout}${stderr}`, { cause: error });
  }
}

let registry: NpmRegistry;
let published: PublishedPackage[];
let scratch: string;
const timings: string[] = [];
const started = Date.now();
const lap = (what: string) => timings.push(`${what}: ${((Date.now() - started) / 1000).toFixed(1)} s`);

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'opkit-registry-install-'));
  registry = await startNpmRegistry({ onProgress: (line) => process.stdout.write(`${line}\n`) });
  lap('registry started');
  published = await registry.publishWorkspace();
  lap('workspace built and published');
}, 300_000);

afterAll(async () => {
  await registry?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  process.stdout.write(`${timings.join('\n')}\n`);
});

describe('a private npm registry with the published workspace', () => {
  it('has every publishable package at its workspace version', () => {
    const names = published.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(PUBLISHED));
    for (const pkg of published) {
      const { version } = JSON.parse(readFileSync(join(pkg.directory, 'package.json'), 'utf8')) as {
        version: string;
      };
      expect(pkg.version, pkg.name).toBe(version);
    }
  });

  it('serves tarballs with their build and license, without tests or build state', async () => {
    const tarballs = join(scratch, 'tarballs');
    mkdirSync(tarballs);
    for (const pkg of published) {
      const packument = (await (await fetch(new URL(pkg.name.replace('/', '%2f'), registry.url))).json()) as {
        versions: Record<string, { dist: { tarball: string } }>;
      };
      const tarball = packument.versions[pkg.version]?.dist.tarball;
      expect(tarball, pkg.name).toMatch(new RegExp(`^${registry.url}`));
      const file = join(tarballs, `${pkg.name.replace('/', '-')}.tgz`);
      writeFileSync(file, Buffer.from(await (await fetch(tarball ?? '')).arrayBuffer()));
      const { stdout } = await run('tar', ['-tzf', file], scratch);
      const paths = stdout
        .split('\n')
        .filter(Boolean)
        .map((p) => p.replace(/^package\//, ''));
      expect(paths, pkg.name).toContain('LICENSE');
      expect(paths, pkg.name).toContain('package.json');
      expect(
        paths.some((p) => p.startsWith('dist/') && p.endsWith('.js')),
        pkg.name,
      ).toBe(true);
      expect(
        paths.filter((p) => /\.spec\.ts$|\.tsbuildinfo$|(^|\/)tsconfig[^/]*\.json$|^test\//.test(p)),
        pkg.name,
      ).toEqual([]);
    }
  });

  it('publishes the files the packages read at run time beside their build', async () => {
    const list = async (name: string) => {
      const { stdout } = await run(
        'tar',
        ['-tzf', join(scratch, 'tarballs', `${name.replace('/', '-')}.tgz`)],
        scratch,
      );
      return stdout.split('\n').map((p) => p.replace(/^package\//, ''));
    };
    const plugin = await list('@opkit/nx');
    const generators = JSON.parse(
      readFileSync(join(workspaceRoot, 'tools/nx-plugin/generators.json'), 'utf8'),
    ) as { generators: Record<string, { factory: string; schema: string }> };
    for (const [name, generator] of Object.entries(generators.generators)) {
      expect(plugin, name).toContain(`${generator.factory.replace(/^\.\//, '')}.js`);
      expect(plugin, name).toContain(generator.schema.replace(/^\.\//, ''));
      // Templates, for the generators that have them in their sources (preset and init write their files).
      if (existsSync(join(workspaceRoot, 'tools/nx-plugin/src/generators', name, 'files')))
        expect(
          plugin.some((p) => p.startsWith(`dist/generators/${name}/files/`)),
          name,
        ).toBe(true);
    }
    const kit = await list('@opkit/test-cluster');
    expect(kit).toContain('vitest-projects.js');
    expect(kit).toContain('dist/testing/vitest-projects.js');
    expect(kit).toContain('dist/oracles/go-parsers/main.go');
    expect(kit).toContain('dist/node/coredns/main.go');
  });

  it('installs the CLI and the runtime outside the repository from it alone, and they run without TypeScript', async () => {
    const project = join(scratch, 'user-project');
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'user-project', version: '0.0.0', private: true, type: 'module' }),
    );
    // An empty cache of its own: every package comes from the registry.
    const { stdout, stderr } = await run(
      'npm',
      [
        'install',
        '@opkit/cli',
        '@opkit/controller-runtime',
        '--userconfig',
        registry.npmrc,
        '--cache',
        join(scratch, 'npm-cache'),
        '--loglevel',
        'http',
        '--no-audit',
        '--no-fund',
      ],
      project,
    );
    lap('installed');
    const fetched = `${stdout}${stderr}`.match(/npm http fetch \w+ \d+ \S+/g) ?? [];
    expect(fetched.length).toBeGreaterThan(0);
    expect(fetched.filter((line) => !line.split(' ')[5]?.startsWith(registry.url))).toEqual([]);

    const cli = published.find((p) => p.name === '@opkit/cli');
    const { stdout: version } = await run(
      join(project, 'node_modules', '.bin', 'opkit'),
      ['--version'],
      project,
    );
    expect(version).toBe(`${cli?.version}\n`);

    writeFileSync(
      join(project, 'runtime.mjs'),
      `import { Manager, kind } from '@opkit/controller-runtime';
import { FakeClient } from '@opkit/controller-runtime/testing';
const configMap = kind('v1', 'ConfigMap');
const client = new FakeClient({ objects: [{ ...configMap, metadata: { name: 'a', namespace: 'default' } }] });
const got = await client.get(configMap, 'a', 'default');
process.stdout.write(\`\${typeof Manager} \${got.metadata.name}\\n\`);
`,
    );
    const { stdout: runtime } = await run(process.execPath, ['runtime.mjs'], project);
    expect(runtime).toBe('function a\n');
    lap('ran');
  }, 300_000);

  it('installs the test kit, whose vitest configuration loads its build where Node strips no types', async () => {
    const project = join(scratch, 'kit-user');
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'kit-user', version: '0.0.0', private: true, type: 'module' }),
    );
    await run(
      'npm',
      [
        'install',
        '@opkit/test-cluster',
        '--userconfig',
        registry.npmrc,
        '--cache',
        join(scratch, 'npm-cache'),
      ],
      project,
    );
    lap('test kit installed');
    // As Vite's config loader imports it: by Node, without the `@opkit/source` condition.
    writeFileSync(
      join(project, 'config.mjs'),
      `import { existsSync } from 'node:fs';
import { opkitGlobalSetups, opkitVitestConfig } from '@opkit/test-cluster/vitest-projects';
const setups = Object.values(opkitGlobalSetups);
process.stdout.write(\`\${setups.every((file) => file.endsWith('.js') && existsSync(file))} \${opkitVitestConfig().test.projects.length}\n\`);
`,
    );
    const { stdout } = await run(process.execPath, ['config.mjs'], project);
    // unit, e2e and envtest
    expect(stdout).toBe('true 3\n');
    // Its command runs its build too (tsx is no dependency of the kit).
    const { stdout: help } = await run(
      join(project, 'node_modules', '.bin', 'opkit-cluster'),
      ['--help'],
      project,
    );
    expect(help).toMatch(/^Usage: opkit-cluster /m);
  }, 300_000);
});
