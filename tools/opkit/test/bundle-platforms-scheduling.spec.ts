import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { CoreV1EventList, V1Deployment, V1Node, V1Pod, V1PodList } from '@kubernetes/client-node';
import { buildImage, buildImageIndex, layerFromEntries, writeLayout } from '@opkit/oci';
import { eventually, KubeRest, type LocalCluster, startCluster, workspaceRoot } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { operatorProjectDir } from './support/operator-project.js';

// The node affinity `bundle generate --platforms-from` writes is what the scheduler acts on: on a kwok-only
// cluster with an amd64 node and an arm64 node, the operator Deployment of a bundle whose images are arm64 only
// lands on the arm64 node, and one whose images are amd64 only is refused there and runs on the amd64 node.

const run = promisify(execFile);
const opkit = join(workspaceRoot, 'tools', 'opkit', 'bin', 'opkit.js');
const scratch = mkdtempSync(join(tmpdir(), 'opkit-platform-scheduling-'));
const ARM64_NODE = 'kwok-arm64';
const namespace = 'platforms';
let cluster: LocalCluster;
let rest: KubeRest;

beforeAll(async () => {
  cluster = await startCluster({ realNode: false, nodes: 1, tempDir: scratch });
  rest = new KubeRest(cluster.kubeConfig);
  const [amd64Node] = cluster.nodeNames;
  // A second kwok node, as the cluster's own but for arm64: kwok manages every node with its label.
  const node = await rest.request<{ metadata: { labels: Record<string, string> } }>(
    'GET',
    `/api/v1/nodes/${amd64Node}`,
  );
  await rest.request('POST', '/api/v1/nodes', {
    body: {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: ARM64_NODE,
        labels: {
          ...node.metadata.labels,
          'kubernetes.io/arch': 'arm64',
          'kubernetes.io/hostname': ARM64_NODE,
        },
      },
    },
  });
  await eventually('the arm64 node Ready', async () => {
    const arm = await rest.request<V1Node>('GET', `/api/v1/nodes/${ARM64_NODE}`);
    return arm.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') || undefined;
  });
  await rest.request('POST', '/api/v1/namespaces', { body: { metadata: { name: namespace } } });
  await rest.request('POST', `/api/v1/namespaces/${namespace}/serviceaccounts`, {
    body: { metadata: { name: 'memcached-operator-controller-manager' } },
  });
}, 300_000);

afterAll(async () => {
  rest?.close();
  await cluster?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * The Memcached operator's bundle generated with `--platforms-from layout`, its operator and operand images
 * being OCI layouts of `architectures` only; answers the CSV's operator Deployment, named `name`.
 */
async function operatorDeployment(name: string, architectures: readonly string[]): Promise<V1Deployment> {
  const dir = join(scratch, name);
  cpSync(join(operatorProjectDir('@opkit/memcached-operator'), 'config'), join(dir, 'config'), {
    recursive: true,
  });
  const operator = `unpushed.example/${name}-operator:0.3.0`;
  const operand = `unpushed.example/${name}-memcached:1.6`;
  const manager = join(dir, 'config', 'manager', 'manager.yaml');
  writeFileSync(manager, readFileSync(manager, 'utf8').replace('docker.io/library/memcached:1.6', operand));
  for (const what of ['operator', 'operand']) {
    const images = architectures.map((architecture) =>
      buildImage([layerFromEntries([{ path: 'what', content: `${what} ${architecture}` }])], {
        architecture,
      }),
    );
    await writeLayout(join(dir, what), [{ image: buildImageIndex(images), tag: 'latest' }]);
  }
  const out = join(dir, 'bundle');
  await run(process.execPath, [
    opkit,
    ...['bundle', 'generate', '--operator', dir, '--package', 'memcached-operator', '--version', '0.3.0'],
    ...['--out', out, '--image', operator, '--platforms-from', 'layout'],
    ...['--image-layout', `${operator}=${join(dir, 'operator')}:latest`],
    ...['--image-layout', `${operand}=${join(dir, 'operand')}:latest`],
  ]);
  const csv = parse(
    readFileSync(join(out, 'manifests', 'memcached-operator.clusterserviceversion.yaml'), 'utf8'),
  ) as { spec: { install: { spec: { deployments: { spec: V1Deployment['spec'] }[] } } } };
  const spec = csv.spec.install.spec.deployments[0]?.spec;
  if (!spec) throw new Error(`the CSV of ${name} has no Deployment`);
  spec.template.metadata = {
    ...spec.template.metadata,
    labels: { ...spec.template.metadata?.labels, run: name },
  };
  spec.selector = { matchLabels: { run: name } };
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace }, spec };
}

async function podOf(name: string): Promise<V1Pod | undefined> {
  const pods = await rest.request<V1PodList>('GET', `/api/v1/namespaces/${namespace}/pods`, {
    query: { labelSelector: `run=${name}` },
  });
  return pods.items[0];
}

describe('the node affinity bundle generate writes from the images’ platforms', () => {
  it('puts the operator of arm64-only images on the arm64 node', async () => {
    const deployment = await operatorDeployment('arm-only', ['arm64']);
    await rest.request('POST', `/apis/apps/v1/namespaces/${namespace}/deployments`, { body: deployment });
    const pod = await eventually('the arm64-only pod scheduled', async () => {
      const found = await podOf('arm-only');
      return found?.spec?.nodeName ? found : undefined;
    });
    expect(pod.spec?.nodeName).toBe(ARM64_NODE);
  });

  it('refuses the operator of amd64-only images on the arm64 node, and runs it on the amd64 node', async () => {
    const pinned = await operatorDeployment('amd-pinned', ['amd64']);
    // Only the arm64 node is allowed by the selector: the affinity from the images must refuse it.
    const template = pinned.spec?.template.spec;
    if (template) template.nodeSelector = { 'kubernetes.io/hostname': ARM64_NODE };
    await rest.request('POST', `/apis/apps/v1/namespaces/${namespace}/deployments`, { body: pinned });
    const refusal = await eventually('the scheduler to refuse the amd64-only pod', async () => {
      const pod = await podOf('amd-pinned');
      if (!pod?.metadata?.name) return undefined;
      const events = await rest.request<CoreV1EventList>('GET', `/api/v1/namespaces/${namespace}/events`, {
        query: { fieldSelector: `involvedObject.name=${pod.metadata.name},reason=FailedScheduling` },
      });
      return events.items[0]?.message;
    });
    expect(refusal).toMatch(/didn't match Pod's node affinity\/selector/);
    expect((await podOf('amd-pinned'))?.spec?.nodeName).toBeUndefined();

    const free = await operatorDeployment('amd-only', ['amd64']);
    await rest.request('POST', `/apis/apps/v1/namespaces/${namespace}/deployments`, { body: free });
    const pod = await eventually('the amd64-only pod scheduled', async () => {
      const found = await podOf('amd-only');
      return found?.spec?.nodeName ? found : undefined;
    });
    expect(pod.spec?.nodeName).toBe(cluster.nodeNames[0]);
  });
});
