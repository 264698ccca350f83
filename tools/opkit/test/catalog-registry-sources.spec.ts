// `opkit catalog diff`, `check` and `upgrade-paths` read a catalog image from a registry on loopback, over plain
// HTTP with --plain-http, as they read it from a directory.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { workspaceRoot } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const opkit = join(workspaceRoot, 'tools', 'opkit', 'bin', 'opkit.js');
const scratch = mkdtempSync(join(tmpdir(), 'opkit-catalog-registry-'));
const configs = join(scratch, 'configs');

/** Runs opkit in the scratch directory; resolves with its exit code and output (never rejects). */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [opkit, ...args], { cwd: scratch });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

let registry: ReturnType<typeof spawn> | undefined;
let reference = '';

/** One package of two versions, as a directory and as an image pushed to a registry on loopback. */
beforeAll(async () => {
  const blobs = [
    { schema: 'olm.package', name: 'demo', defaultChannel: 'stable' },
    {
      schema: 'olm.channel',
      package: 'demo',
      name: 'stable',
      entries: [{ name: 'demo.v1.0.0' }, { name: 'demo.v1.1.0', replaces: 'demo.v1.0.0' }],
    },
    ...['1.0.0', '1.1.0'].map((v) => ({
      schema: 'olm.bundle',
      package: 'demo',
      name: `demo.v${v}`,
      image: `example.com/demo-bundle:v${v}`,
      properties: [{ type: 'olm.package', value: { packageName: 'demo', version: v } }],
    })),
  ];
  mkdirSync(join(configs, 'demo'), { recursive: true });
  writeFileSync(join(configs, 'demo', 'catalog.json'), blobs.map((b) => JSON.stringify(b)).join('\n'));
  const port = await freePort();
  const dir = join(scratch, 'registry');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'config.yml'),
    `version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: ${dir}/data\nhttp:\n  addr: 127.0.0.1:${port}\n`,
  );
  registry = spawn('docker-registry', ['serve', join(dir, 'config.yml')], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    if ((await fetch(`http://127.0.0.1:${port}/v2/`).catch(() => undefined))?.ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const layout = join(scratch, 'layout');
  expect((await cli('catalog', 'image', configs, '--layout', layout)).code).toBe(0);
  reference = `127.0.0.1:${port}/acme/catalog:v1`;
  expect((await cli('image', 'push', layout, reference, '--plain-http')).code).toBe(0);
});

afterAll(() => {
  registry?.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

describe('catalog commands given an image reference on a loopback registry', () => {
  it('diff, check and upgrade-paths read it with --plain-http as they read the directory', async () => {
    expect(await cli('catalog', 'diff', reference, configs, '--plain-http')).toMatchObject({
      code: 0,
      stdout: 'no changes\n',
    });
    const checked = await cli(
      'catalog',
      'check',
      configs,
      '--previous',
      reference,
      '--plain-http',
      '-o',
      'json',
    );
    expect(checked.code).toBe(0);
    expect(JSON.parse(checked.stdout)).toEqual(
      JSON.parse((await cli('catalog', 'check', configs, '--previous', configs, '-o', 'json')).stdout),
    );
    const paths = await cli('catalog', 'upgrade-paths', reference, '--previous', reference, '--plain-http');
    expect(paths).toEqual(await cli('catalog', 'upgrade-paths', configs, '--previous', configs));
    expect(paths.code).toBe(0);
  });
});
