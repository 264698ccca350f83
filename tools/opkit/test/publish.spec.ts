// `opkit catalog publish` against a real OLM: our own served catalog becomes READY; a dead address does not.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KubeRest, type LocalCluster, startCluster } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..', '..');
const opkit = join(root, 'tools', 'opkit', 'bin', 'opkit.js');
let cluster: LocalCluster;
let server: ChildProcess | undefined;

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [opkit, ...args], { cwd: root });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Serves on the node's address: OLM's catalog operator runs in a pod, whose loopback is its own. */
async function serveOurCatalog(): Promise<string> {
  const host = cluster.realNode?.ip ?? '127.0.0.1';
  server = spawn(
    process.execPath,
    [opkit, 'catalog', 'serve', 'catalog/configs', '--inline-bundles', '--port', '0', '--host', host],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let log = '';
  server.stdout!.on('data', (d: Buffer) => {
    log += d.toString();
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const m = /listening on (\S+)/.exec(log);
    if (m) return m[1]!;
    if (server.exitCode !== null || Date.now() > deadline)
      throw new Error(`catalog serve did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  cluster = await startCluster({ olm: true });
});

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await once(server, 'exit');
  }
  await cluster?.stop();
});

describe('opkit catalog publish', () => {
  it('publishes the catalog served by opkit catalog serve, and OLM connects to it', async () => {
    const address = await serveOurCatalog();
    const result = await cli(
      'catalog',
      'publish',
      '--name',
      'opkit-served',
      '--address',
      address,
      '--display-name',
      'opkit test catalog',
      '--timeout',
      '120s',
      '--kubeconfig',
      cluster.kubeconfigPath,
    );
    expect(result, result.stderr).toMatchObject({ code: 0 });
    expect(result.stdout).toContain('applied CatalogSource olm/opkit-served');
    expect(result.stdout).toMatch(/CatalogSource olm\/opkit-served: READY\n$/);
    const source = await new KubeRest(cluster.kubeConfig).request<{
      spec: Record<string, string>;
      status: { connectionState: { lastObservedState: string } };
    }>('GET', '/apis/operators.coreos.com/v1alpha1/namespaces/olm/catalogsources/opkit-served');
    expect(source.spec).toMatchObject({ sourceType: 'grpc', address, displayName: 'opkit test catalog' });
    expect(source.status.connectionState.lastObservedState).toBe('READY');

    // Publishing again updates the same object in place.
    const again = await cli(
      'catalog',
      'publish',
      '--name',
      'opkit-served',
      '--address',
      address,
      '--kubeconfig',
      cluster.kubeconfigPath,
    );
    expect(again, again.stderr).toMatchObject({ code: 0 });
  });

  it('fails with the last observed state when nothing answers at the address', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => resolve(port));
      });
    });
    const result = await cli(
      'catalog',
      'publish',
      '--name',
      'opkit-dead',
      '--address',
      `127.0.0.1:${port}`,
      '--timeout',
      '20s',
      '--kubeconfig',
      cluster.kubeconfigPath,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /CatalogSource olm\/opkit-dead did not become READY within 20s; last observed state: (TRANSIENT_FAILURE|CONNECTING|IDLE)/,
    );
  });

  it('needs exactly one of --address and --image', async () => {
    const result = await cli('catalog', 'publish', '--name', 'x', '--kubeconfig', cluster.kubeconfigPath);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('give exactly one of --address <host:port> or --image <reference>');
  });

  it('takes --extract-content only with --image, as an absolute directory in it', async () => {
    const publish = (...args: string[]) =>
      cli('catalog', 'publish', '--name', 'x', '--kubeconfig', cluster.kubeconfigPath, ...args);
    const withAddress = await publish('--address', '127.0.0.1:1', '--extract-content', '/configs');
    expect(withAddress.code).toBe(1);
    expect(withAddress.stderr).toContain('--extract-content needs --image: it names a directory in it');
    const relative = await publish('--image', 'quay.io/acme/catalog:v1', '--extract-content', 'configs');
    expect(relative.code).toBe(1);
    expect(relative.stderr).toContain(
      `--extract-content "configs": give the catalog's absolute path in the image, e.g. /configs`,
    );
  });
});
