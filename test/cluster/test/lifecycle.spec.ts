import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { type LocalCluster, startCluster } from '../src/cluster.js';
import { readControlPlaneDescription } from '../src/control-plane/description.js';
import { ComponentBuildError, GoToolchainError, PortInUseError } from '../src/errors.js';
import { KubeRest } from '../src/kube/rest.js';
import { ensureComponents } from '../src/toolchain/build.js';
import type { ComponentRecipe } from '../src/toolchain/recipes.js';

const run = promisify(execFile);
const cli = join(import.meta.dirname, '..', 'bin', 'opkit-cluster.js');

/** The client rate limit a control-plane component runs with, from its `/configz`, asked as the admin. */
async function clientRateLimit(
  cluster: LocalCluster,
  component: 'controllerManager' | 'scheduler',
): Promise<{ qps: number; burst: number }> {
  const { layout } = readControlPlaneDescription(cluster.kubeconfigPath);
  const port = component === 'controllerManager' ? layout.controllerManagerPort : layout.schedulerPort;
  const admin = layout.pki.clients.admin;
  const text = await new Promise<string>((resolve, reject) => {
    const req = get(
      {
        host: '127.0.0.1',
        port,
        path: '/configz',
        cert: readFileSync(admin.cert),
        key: readFileSync(admin.key),
        rejectUnauthorized: false, // the component serves with a certificate it made for itself
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          res.statusCode === 200 ? resolve(body) : reject(new Error(`${res.statusCode}: ${body}`)),
        );
      },
    );
    req.on('error', reject);
  });
  const config = JSON.parse(text) as Record<
    string,
    {
      Generic?: { ClientConnection: { qps: number; burst: number } };
      clientConnection?: { qps: number; burst: number };
    }
  >;
  const [entry] = Object.values(config);
  const connection = entry?.Generic?.ClientConnection ?? entry?.clientConnection;
  if (!connection) throw new Error(`no client connection in ${text.slice(0, 200)}`);
  return { qps: connection.qps, burst: connection.burst };
}

describe('cluster lifecycle', () => {
  it('runs kwok-only clusters side by side on different ports, each with its control-plane rate limits', async () => {
    const [a, b] = await Promise.all([
      startCluster({ realNode: false, nodes: 1 }),
      startCluster({ realNode: false, nodes: 1, controlPlaneQps: 150 }),
    ]);
    try {
      expect(a.server).not.toBe(b.server);
      for (const c of [a, b]) {
        const rest = new KubeRest(c.kubeConfig);
        const nodes = await rest.request<{ items: unknown[] }>('GET', '/api/v1/nodes');
        expect(nodes.items).toHaveLength(1);
        rest.close();
      }
      // The components' own defaults, unless the cluster was started with a rate of its own.
      expect(await clientRateLimit(a, 'controllerManager')).toEqual({ qps: 20, burst: 30 });
      expect(await clientRateLimit(a, 'scheduler')).toEqual({ qps: 50, burst: 100 });
      expect(await clientRateLimit(b, 'controllerManager')).toEqual({ qps: 150, burst: 300 });
      expect(await clientRateLimit(b, 'scheduler')).toEqual({ qps: 150, burst: 300 });
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    expect(existsSync(a.dir)).toBe(false);
    expect(existsSync(b.dir)).toBe(false);
  });

  it('refuses a control-plane rate that is not a whole number of requests per second', async () => {
    for (const controlPlaneQps of [0, 2.5, Number.NaN]) {
      await expect(startCluster({ realNode: false, controlPlaneQps })).rejects.toThrow(
        /controlPlaneQps: expected a whole number from 1 to 100000/,
      );
    }
  });

  it('says which port is taken instead of failing obscurely', async () => {
    const blocker = createServer();
    const port = await new Promise<number>((resolve) =>
      blocker.listen(0, '127.0.0.1', () => resolve((blocker.address() as { port: number }).port)),
    );
    try {
      await expect(startCluster({ apiServerPort: port, realNode: false })).rejects.toThrow(PortInUseError);
      const result = await run(process.execPath, [
        cli,
        'up',
        '--name',
        'port-test',
        '--no-real-node',
        '--port',
        String(port),
      ]).catch((e: { code: number; stderr: string }) => e);
      expect(result).toMatchObject({ code: 1 });
      expect((result as { stderr: string }).stderr).toBe(
        `opkit-cluster: port ${port} on 127.0.0.1 (kube-apiserver) is already in use: stop what listens there or leave the port unset to pick a free one\n`,
      );
    } finally {
      blocker.close();
    }
  });

  it('explains a missing Go toolchain in one line', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'opkit-empty-cache-'));
    try {
      const env = { ...process.env, OPKIT_CACHE_DIR: cache, OPKIT_GO: '/nonexistent/go' };
      const result = await run(process.execPath, [cli, 'prepare'], { env }).catch(
        (e: { code: number; stderr: string }) => e,
      );
      expect(result).toMatchObject({ code: 1 });
      expect((result as { stderr: string }).stderr).toMatch(
        /^opkit-cluster: no Go toolchain found \('\/nonexistent\/go' did not run\): install Go 1\.26\.0 or newer.*\n$/,
      );
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('reports a failed build with its log and caches nothing', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'opkit-empty-cache-'));
    const previous = process.env.OPKIT_CACHE_DIR;
    process.env.OPKIT_CACHE_DIR = cache;
    const broken: ComponentRecipe = {
      name: 'broken',
      version: '0.0.1',
      files: ['broken'],
      async build(ctx) {
        await ctx.go(['mod', 'init', 'local/broken']);
        await ctx.go(['build', '-o', ctx.outDir, './does-not-exist']);
      },
    };
    try {
      const failure = ensureComponents([broken]);
      await expect(failure).rejects.toThrow(ComponentBuildError);
      await expect(failure).rejects.toThrow(
        /building broken failed: 'go build .*' exited 1: .*\(full log: .*broken-v0\.0\.1\.log\)/,
      );
      expect(existsSync(join(cache, 'bin', 'broken-v0.0.1'))).toBe(false);
    } finally {
      if (previous === undefined) delete process.env.OPKIT_CACHE_DIR;
      else process.env.OPKIT_CACHE_DIR = previous;
      rmSync(cache, { recursive: true, force: true });
    }
    expect(new GoToolchainError('x').code).toBe('CLUSTER_GO_TOOLCHAIN');
  });

  it('starts with `up`, answers kubectl, and `down` leaves nothing behind', async () => {
    const name = `cli-${process.pid}`;
    const up = await run(process.execPath, [cli, 'up', '--name', name, '--no-real-node', '--nodes', '2']);
    const kubeconfig = up.stdout.match(/^kubeconfig: (.+)$/m)?.[1];
    expect(kubeconfig).toBeDefined();
    const dir = join(kubeconfig!, '..');
    try {
      const kubectl = await run('kubectl', [
        '--kubeconfig',
        kubeconfig!,
        'get',
        'nodes,pods',
        '-A',
        '-o',
        'name',
      ]);
      expect(kubectl.stdout).toContain('node/opkit-node-0');
      expect(kubectl.stdout).toContain('node/opkit-node-1');
    } finally {
      const down = await run(process.execPath, [cli, 'down', '--name', name]);
      expect(down.stdout).toContain(`cluster '${name}' stopped`);
    }
    expect(existsSync(dir)).toBe(false);
    const { stdout } = await run('ps', ['-eo', 'args']);
    expect(stdout).not.toContain(dir);
  });
});
