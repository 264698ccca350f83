import { join } from 'node:path';
import {
  KubeRest,
  type LocalCluster,
  oldestSupportedNode,
  releasedData,
  startCluster,
  workspaceRoot,
} from '@opkit/test-cluster';
import { pushReleasedOperatorImages } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OLM_V1ALPHA1 } from '../src/olm-types.js';
import { opkit, publishCatalog, pushCatalogImage } from '../src/opkit-cli.js';
import {
  approveNextInstallPlan,
  createInstallNamespace,
  getOptional,
  subscribe,
  waitForCsvSucceeded,
} from '../src/subscriptions.js';

// `opkit olm install | status | uninstall` on a cluster that starts without OLM: OLM runs in pods from the
// images in the cluster's registry (under their upstream names, which `olm install` uses by default), installs
// the Redis operator from our catalog by a Subscription, and leaves nothing behind when uninstalled.

const OPERATOR_NAMESPACE = 'redis-system';
const PACKAGE = 'redis-operator';
const CSV = 'redis-operator.v0.2.0';
const OPM_IMAGE = 'quay.io/operator-framework/opm:v1.73.0';

let cluster: LocalCluster;
let rest: KubeRest;
let catalogImage: string;
let kubeconfig: string[];
let oldestNode: ReturnType<typeof oldestSupportedNode>;

beforeAll(async () => {
  // Fetched (once per machine, into the component cache) while the cluster starts; its test awaits it.
  oldestNode = oldestSupportedNode();
  oldestNode.catch(() => undefined);
  cluster = await startCluster({ olmImages: true });
  rest = new KubeRest(cluster.kubeConfig);
  kubeconfig = ['--kubeconfig', cluster.kubeconfigPath];
  const registry = cluster.registry;
  if (!registry) throw new Error('the cluster has no registry (no real node)');
  await pushReleasedOperatorImages({
    repoRoot: workspaceRoot,
    operator: 'operators/redis',
    registry,
    repository: 'redis-operator',
    versions: ['0.2.0'],
    layoutDir: join(cluster.dir, 'redis-operator-image'),
  });
  catalogImage = await pushCatalogImage({
    catalogDir: releasedData.catalogConfigs,
    registry,
    layoutDir: join(cluster.dir, 'catalog-image'),
    serving: true,
    inlineBundles: true,
  });
});

afterAll(async () => {
  rest?.close();
  await cluster?.stop();
});

interface StatusReport {
  readonly installed: boolean;
  readonly healthy: boolean;
  readonly resources: readonly { name: string; namespace: string; kind: string; status: string }[];
}

async function names(path: string, suffix = ''): Promise<string[]> {
  const list = await rest.request<{ items: { metadata: { name: string } }[] }>('GET', path);
  return list.items.map((i) => i.metadata.name).filter((n) => n.endsWith(suffix));
}

describe('opkit olm', () => {
  it('status exits 1 on a cluster without OLM', async () => {
    const status = await opkit(['olm', 'status', ...kubeconfig]);
    expect(status.stderr.trim()).toBe('opkit: OLM is not installed');
    expect(status.code).toBe(1);
  });

  it('install lays out OLM and waits until its operators and the packageserver are ready', async () => {
    const install = await opkit([
      'olm',
      'install',
      '--opm-image',
      OPM_IMAGE,
      '--timeout',
      '4m',
      ...kubeconfig,
    ]);
    expect(install.stderr).toContain('waiting for Deployment olm/catalog-operator');
    expect(install.stderr).toContain('OLM is installed');
    expect(install.code).toBe(0);
    expect(install.stdout.split('\n')[0]).toMatch(/^NAME\s+NAMESPACE\s+KIND\s+STATUS$/);
    expect(install.stdout).toMatch(/olm-operator\s+olm\s+Deployment\s+Available \(1\/1 available\)/);
    expect(install.stdout).toMatch(/packageserver\s+olm\s+ClusterServiceVersion\s+Succeeded/);

    const pods = await rest.request<{ items: { spec: { containers: { image: string }[] } }[] }>(
      'GET',
      '/api/v1/namespaces/olm/pods',
    );
    expect(new Set(pods.items.map((p) => p.spec.containers[0]?.image))).toEqual(
      new Set(['quay.io/operator-framework/olm:v0.46.0']),
    );
    // The packageserver serves the PackageManifest API through the aggregator.
    const apiService = await rest.request<{ status?: { conditions?: { type: string; status: string }[] } }>(
      'GET',
      '/apis/apiregistration.k8s.io/v1/apiservices/v1.packages.operators.coreos.com',
    );
    expect(apiService.status?.conditions?.find((c) => c.type === 'Available')?.status).toBe('True');
  });

  it('status reports every object healthy, as a table or as data', async () => {
    const json = await opkit(['olm', 'status', '-o', 'json', ...kubeconfig]);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as StatusReport;
    expect(report.installed).toBe(true);
    expect(report.healthy).toBe(true);
    expect(report.resources).toContainEqual({
      name: 'subscriptions.operators.coreos.com',
      namespace: '',
      kind: 'CustomResourceDefinition',
      status: 'Installed',
    });
    expect(report.resources).toContainEqual({
      name: 'global-operators',
      namespace: 'operators',
      kind: 'OperatorGroup',
      status: 'Installed',
    });
    const table = await opkit(['olm', 'status', ...kubeconfig]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/catalog-operator\s+olm\s+Deployment\s+Available/);
    const unknown = await opkit(['olm', 'status', '-o', 'wide', ...kubeconfig]);
    expect(unknown.code).toBe(1);
  });

  it('install refuses a cluster that has OLM already', async () => {
    const again = await opkit(['olm', 'install', ...kubeconfig]);
    expect(again.stderr.trim().split('\n').at(-1)).toBe(
      'opkit: OLM is already installed (found CustomResourceDefinition catalogsources.operators.coreos.com): uninstall it first with `opkit olm uninstall`',
    );
    expect(again.code).toBe(1);
  });

  it('the installed OLM installs our Redis operator from a CatalogSource by a Subscription', async () => {
    const published = await publishCatalog({
      name: 'opkit',
      namespace: 'olm',
      image: catalogImage,
      kubeconfigPath: cluster.kubeconfigPath,
    });
    expect(published.code).toBe(0);
    await createInstallNamespace(rest, OPERATOR_NAMESPACE);
    await subscribe(rest, {
      namespace: OPERATOR_NAMESPACE,
      packageName: PACKAGE,
      channel: 'stable-v0',
      source: 'opkit',
      sourceNamespace: 'olm',
      startingCSV: CSV,
      env: { RELATED_IMAGE_REDIS: 'docker.io/library/redis:7.0' },
    });
    expect(await approveNextInstallPlan(rest, OPERATOR_NAMESPACE, PACKAGE)).toEqual([CSV]);
    await waitForCsvSucceeded(rest, OPERATOR_NAMESPACE, CSV);
  });

  it('the cluster commands answer alike on the oldest Node that engines allows', async () => {
    // `engines` is a promise: on the oldest Node it allows, the Kubernetes client's HTTP stack must load and
    // talk to the cluster (on Node 20 undici's decompressor failed before the first request).
    const node = await oldestNode;
    const onBoth = async (command: readonly string[]) => {
      const current = await opkit([...command, ...kubeconfig]);
      const oldest = await opkit([...command, ...kubeconfig], { node: node.path });
      expect({ command, ...oldest }).toEqual({ command, ...current });
      return oldest;
    };

    const status = await onBoth(['olm', 'status', '-o', 'json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ installed: true, healthy: true });
    const cleanup = await onBoth(['cleanup', 'no-such-package', '-n', OPERATOR_NAMESPACE]);
    expect(cleanup.stderr).not.toContain('unexpected error');
  });

  it('uninstall refuses while OLM holds what it did not install; with --delete-crds it removes all', async () => {
    const refused = await opkit(['olm', 'uninstall', ...kubeconfig]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n').at(-1)).toMatch(
      /^opkit: OLM's CRDs hold 1 Subscription, 1 InstallPlan, 1 ClusterServiceVersion, 1 CatalogSource, 1 OperatorGroup that `opkit olm install` did not create \(Subscription redis-system\/redis-operator, InstallPlan redis-system\/install-[a-z0-9]+, ClusterServiceVersion redis-system\/redis-operator\.v0\.2\.0, …\), and would go with them: remove them first, or give --delete-crds to delete them too; nothing deleted$/,
    );
    await waitForCsvSucceeded(rest, OPERATOR_NAMESPACE, CSV);

    const uninstall = await opkit(['olm', 'uninstall', '--delete-crds', '--timeout', '4m', ...kubeconfig]);
    expect(uninstall.stderr).toContain(
      "deleting 1 Subscription, 1 InstallPlan, 1 ClusterServiceVersion, 1 CatalogSource, 1 OperatorGroup not created by olm install, with OLM's CRDs (--delete-crds)\n",
    );
    expect(uninstall.stderr).not.toContain('leaving');
    expect(uninstall.stderr).toContain('deleting 1 Subscription\n');
    expect(uninstall.stderr).toContain('OLM is uninstalled');
    expect(uninstall.code).toBe(0);

    expect(
      await names('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', '.operators.coreos.com'),
    ).toEqual([]);
    const namespaces = await names('/api/v1/namespaces');
    expect(namespaces).not.toContain('olm');
    expect(namespaces).not.toContain('operators');
    expect(await names('/apis/rbac.authorization.k8s.io/v1/clusterroles')).not.toContain(
      'system:controller:operator-lifecycle-manager',
    );
    expect(await names('/apis/apiregistration.k8s.io/v1/apiservices')).not.toContain(
      'v1.packages.operators.coreos.com',
    );
    // The operator OLM deployed went with its CSV.
    expect(
      await getOptional(
        rest,
        `/apis/apps/v1/namespaces/${OPERATOR_NAMESPACE}/deployments/redis-operator-controller-manager`,
      ),
    ).toBeUndefined();
    expect(
      await getOptional(rest, `${OLM_V1ALPHA1}/namespaces/${OPERATOR_NAMESPACE}/subscriptions`),
    ).toBeUndefined();

    const status = await opkit(['olm', 'status', ...kubeconfig]);
    expect(status.code).toBe(1);
    const again = await opkit(['olm', 'uninstall', ...kubeconfig]);
    expect(again.stderr.trim().split('\n').at(-1)).toBe(
      'opkit: OLM is not installed: none of its objects exist',
    );
    expect(again.code).toBe(1);
  }, 300_000);

  it('right after a default install, a plain uninstall removes everything', async () => {
    // Nothing but what OLM makes for its own install (the packageserver's OperatorCondition, Deployment,
    // Service and Secret) stands in the way, and the olm and operators namespaces go.
    const install = await opkit([
      'olm',
      'install',
      '--opm-image',
      OPM_IMAGE,
      '--timeout',
      '4m',
      ...kubeconfig,
    ]);
    expect(install.code, install.stderr).toBe(0);
    const uninstall = await opkit(['olm', 'uninstall', '--timeout', '4m', ...kubeconfig]);
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(uninstall.stderr).not.toContain('leaving');
    expect(uninstall.stderr).toContain('OLM is uninstalled');
    const namespaces = await names('/api/v1/namespaces');
    expect(namespaces).not.toContain('olm');
    expect(namespaces).not.toContain('operators');
  }, 540_000);
});
