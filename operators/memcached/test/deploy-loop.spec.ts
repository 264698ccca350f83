// The local deploy loop as a newcomer runs it: on the test cluster (a real node), `nx run memcached:deploy`
// (`opkit deploy --operator .`, no --image) builds the operator's image on the Node base the cluster records,
// pushes it to the cluster's registry and deploys it; the node pulls it and the manager becomes ready.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { opkitScript } from '@opkit/test-cluster';
import { eventually, KubeApiError, KubeRest, testKubeConfig } from '@opkit/test-cluster/vitest';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';

const run = promisify(execFile);
const operatorDir = join(import.meta.dirname, '..');
const namespace = 'memcached-operator-system';
const scratch = mkdtempSync(join(tmpdir(), 'memcached-deploy-loop-'));
const env = { ...process.env, KUBECONFIG: inject('opkitKubeconfig') };
const opkit = (...args: string[]) =>
  run(process.execPath, [opkitScript(), ...args], { cwd: scratch, env, timeout: 180_000 });

interface ManagerPod {
  readonly spec: { readonly containers: readonly { readonly image: string }[] };
  readonly status?: {
    readonly containerStatuses?: readonly { ready: boolean; image: string; imageID: string }[];
  };
}

const rest = new KubeRest(testKubeConfig());

const manifestTypes = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

interface ManifestOrIndex {
  readonly config?: { readonly digest: string };
  readonly manifests?: readonly {
    readonly digest: string;
    readonly platform?: { readonly os: string; readonly architecture: string };
  }[];
}

/** The config digest of the linux/amd64 image `digest` names in the test registry (an index is resolved). */
async function configDigest(host: string, repository: string, digest: string): Promise<string> {
  const res = await fetch(`http://${host}/v2/${repository}/manifests/${digest}`, {
    headers: { accept: manifestTypes },
  });
  expect(res.status, `manifest ${repository}@${digest}`).toBe(200);
  const body = (await res.json()) as ManifestOrIndex;
  if (body.config !== undefined) return body.config.digest;
  const amd64 = body.manifests?.find(
    (m) => m.platform?.os === 'linux' && m.platform.architecture === 'amd64',
  );
  expect(amd64, `linux/amd64 in the index ${repository}@${digest}`).toBeDefined();
  return configDigest(host, repository, amd64?.digest ?? '');
}

afterAll(async () => {
  await opkit('undeploy', '--operator', operatorDir, '--delete-crds').catch(() => undefined);
  await eventually(
    `namespace ${namespace} to be gone`,
    async () => {
      try {
        await rest.request('GET', `/api/v1/namespaces/${namespace}`);
        return false;
      } catch (error) {
        return error instanceof KubeApiError && error.status === 404;
      }
    },
    { timeoutMs: 120_000 },
  );
  rest.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('nx run memcached:deploy on the local cluster', () => {
  it('builds the image on the cluster’s base, pushes it to its registry and runs it, with no --image', async () => {
    const hosting = await rest.request<{
      data: Record<string, string>;
      metadata: { annotations: Record<string, string> };
    }>('GET', '/api/v1/namespaces/kube-public/configmaps/local-registry-hosting');
    const { host } = parse(hosting.data['localRegistryHosting.v1'] ?? '') as { host: string };
    const base = hosting.metadata.annotations['opkit.dev/base-image'];
    expect(host).toBe(inject('opkitRegistry'));
    expect(base).toMatch(new RegExp(`^${host.replaceAll('.', '\\.')}/opkit/node:\\d+\\.\\d+\\.\\d+$`));
    const image = `${host}/memcached-operator:0.3.0`;

    const started = performance.now();
    const { stdout } = await opkit('deploy', '--operator', operatorDir);
    process.stdout.write(`opkit deploy took ${Math.round(performance.now() - started)} ms\n`);
    expect(stdout).toContain(`building ${image} on ${base} `);
    const digest = /^pushed \S+@(sha256:[0-9a-f]{64})$/m.exec(stdout)?.[1];
    expect(digest, stdout).toBeDefined();
    // Pinned to the pushed digest: a node that ran an earlier build of the same tag runs this one.
    expect(stdout).toContain(`deploying with ${image}@${digest}\n`);

    const running = await eventually(
      'the manager pod to run the pushed image and be ready',
      async () => {
        const pods = await rest.request<{ items: ManagerPod[] }>(
          'GET',
          `/api/v1/namespaces/${namespace}/pods`,
          {
            query: { labelSelector: 'control-plane=controller-manager' },
          },
        );
        // The pod of this deploy: a pod of an earlier deploy of the same Deployment may still be listed.
        const pod = pods.items.find((p) => p.spec.containers[0]?.image === `${image}@${digest}`);
        const status = pod?.status?.containerStatuses?.[0];
        return status?.ready ? status : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    // `imageID` names the repository and a digest of the content the node runs. The runtime keeps one image
    // per config, with every digest it was pulled by (another suite may have pushed the same build under another
    // manifest digest) and names the first, so the check is that the digest leads to this build's config.
    const repository = image.slice(0, image.lastIndexOf(':'));
    expect(running.imageID.startsWith(`${repository}@sha256:`), running.imageID).toBe(true);
    const runningDigest = running.imageID.slice(repository.length + 1);
    expect(await configDigest(host, 'memcached-operator', runningDigest)).toBe(
      await configDigest(host, 'memcached-operator', digest ?? ''),
    );
  });
});
