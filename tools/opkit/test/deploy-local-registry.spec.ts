// `opkit deploy` with no --image on a cluster that records a local registry (KEP-1755), as the test kit's
// clusters do: a kwok-only control plane (no root) and a loopback registry stand in for the real-node cluster,
// which proves the ConfigMap, the base choice, the build and the push; that the node then runs the image is
// operators/memcached/test/deploy-loop.spec.ts's part, on a real node.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildImage, layerFromEntries, RegistryClient } from '@opkit/oci';
import {
  type ImageRegistry,
  KubeRest,
  type LocalCluster,
  recordLocalRegistry,
  startCluster,
  startImageRegistry,
} from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorProjectDir } from './support/operator-project.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..', '..');
const opkit = join(root, 'tools', 'opkit', 'bin', 'opkit.js');
const operatorDir = operatorProjectDir('@opkit/memcached-operator');
const scratch = mkdtempSync(join(tmpdir(), 'opkit-deploy-local-'));
const tools = spawnSync('sh', ['-c', 'command -v docker-registry'], { stdio: 'ignore' }).status === 0;

let cluster: LocalCluster | undefined;
let registry: ImageRegistry | undefined;
let rest: KubeRest | undefined;
/** The base the cluster records: a stand-in "Node" image, one layer of its own. */
let baseImage = '';
let baseLayer = '';

/** Runs opkit in a scratch directory against the cluster; resolves with its exit code and output. */
async function cli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [opkit, ...args], {
      cwd: scratch,
      env: { ...process.env, KUBECONFIG: cluster?.kubeconfigPath, ...env },
      maxBuffer: 32 << 20,
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  if (!tools) return;
  const started = performance.now();
  [cluster, registry] = await Promise.all([
    startCluster({ realNode: false, nodes: 1, tempDir: scratch }),
    startImageRegistry(join(scratch, 'registry')),
  ]);
  rest = new KubeRest(cluster.kubeConfig);
  const base = buildImage([layerFromEntries([{ path: 'usr/local/bin/node', content: 'not node\n' }])], {
    entrypoint: ['/usr/local/bin/node'],
  });
  baseLayer = base.manifest.layers[0]?.digest ?? '';
  baseImage = `${registry.host}/opkit/node:24.0.0`;
  const client = new RegistryClient({ plainHttp: [registry.host] });
  try {
    await client.push(base, baseImage);
  } finally {
    client.close();
  }
  await recordLocalRegistry(rest, { host: registry.host, baseImage });
  process.stdout.write(`cluster and registry ready in ${Math.round(performance.now() - started)} ms\n`);
});

afterAll(async () => {
  rest?.close();
  await cluster?.stop();
  await registry?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe.skipIf(!tools)('opkit deploy on a cluster with a local registry', () => {
  it('builds the image on the recorded base, pushes it as <registry>/<package>:<version> and deploys it', async () => {
    const host = registry?.host ?? '';
    const image = `${host}/memcached-operator:0.3.0`;
    const started = performance.now();
    const deployed = await cli(['deploy', '--operator', operatorDir]);
    process.stdout.write(`opkit deploy took ${Math.round(performance.now() - started)} ms\n`);
    expect(deployed, deployed.stderr).toMatchObject({ code: 0 });
    expect(deployed.stdout).toContain(
      `building ${image} on ${baseImage} (the cluster's local registry is ${host})\n`,
    );
    const digest = new RegExp(`^pushed ${image.replaceAll('.', '\\.')}@(sha256:[0-9a-f]{64})$`, 'm').exec(
      deployed.stdout,
    )?.[1];
    expect(digest, deployed.stdout).toBeDefined();
    // Pinned to the pushed digest, so a node that ran an earlier build of the tag runs this one.
    expect(deployed.stdout).toContain(`deploying with ${image}@${digest}\n`);

    const client = new RegistryClient({ plainHttp: [host] });
    try {
      const pushed = await client.pull(image);
      expect(pushed.manifest.layers[0]?.digest, 'the base layer comes first').toBe(baseLayer);
      expect(pushed.config.config?.Entrypoint?.slice(-1)).toEqual(['/app/main.mjs']);
    } finally {
      client.close();
    }
    const deployment = await rest?.request<{
      spec: { template: { spec: { containers: { name: string; image: string }[] } } };
    }>(
      'GET',
      '/apis/apps/v1/namespaces/memcached-operator-system/deployments/memcached-operator-controller-manager',
    );
    expect(deployment?.spec.template.spec.containers.map((c) => c.image)).toContain(`${image}@${digest}`);
  });

  it("offline, image build's error names --base and the cluster's base", async () => {
    // A proxy that refuses every connection: the default base's registry cannot be reached.
    const built = await cli(
      ['image', 'build', '--operator', operatorDir, '--layout', join(scratch, 'offline')],
      {
        HTTPS_PROXY: 'http://127.0.0.1:9',
        https_proxy: 'http://127.0.0.1:9',
        NO_PROXY: '127.0.0.1,localhost',
        no_proxy: '127.0.0.1,localhost',
      },
    );
    expect(built.code).toBe(1);
    expect(built.stderr).toMatch(
      /^opkit: cannot fetch base image gcr\.io\/distroless\/\S+: gcr\.io unreachable \(.+\); /,
    );
    expect(built.stderr).toContain(`e.g. the local cluster's: --base ${baseImage} --plain-http\n`);
    expect(built.stderr.split('\n')).toHaveLength(2);
  });

  it('without a local registry and --image: one line saying to pass --image and how to push one', async () => {
    await rest?.request('DELETE', '/api/v1/namespaces/kube-public/configmaps/local-registry-hosting');
    const deployed = await cli(['deploy', '--operator', operatorDir]);
    expect(deployed.code).toBe(1);
    expect(deployed.stderr).toMatch(
      /^opkit: no --image, and the cluster records no local registry \(ConfigMap kube-public\/local-registry-hosting\): push the operator's image first \(opkit image build --operator \S+; opkit image push dist\/images\/memcached-operator <registry>\/memcached-operator:0\.3\.0\) and pass --image <registry>\/memcached-operator:0\.3\.0\n$/,
    );
  });
});
