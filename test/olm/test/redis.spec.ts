import { type KubeRest, type LocalCluster, releasedData } from '@opkit/test-cluster';
import { eventually, RBAC_DENIED } from '@opkit/test-cluster/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Condition, CustomResourceDefinition } from '../src/kube-types.js';
import { type ClusterServiceVersion, OLM_V1ALPHA1 } from '../src/olm-types.js';
import { useOlmWorld } from '../src/olm-world.js';
import { explainedBy, operatorPod } from '../src/operator-pod.js';
import { publishCatalog } from '../src/opkit-cli.js';
import {
  approveNextInstallPlan,
  bundleUnpacks,
  createInstallNamespace,
  subscribe,
  waitForCsvSucceeded,
  waitForDeletion,
} from '../src/subscriptions.js';

// The Redis operator from our catalog: its semver-template channel stable-v0, installed at 0.1.0 and upgraded
// to 0.2.0 while a six-node Redis Cluster keeps running; the operator and redis run in pods on the real node.
// The catalog ships as a catalog-only image that OLM copies out and serves with its own opm image
// (`grpcPodConfig.extractContent`), its bundles as bundle images that OLM's unpack Jobs pull.

const OPERATOR_NAMESPACE = 'redis-system';
const APP_NAMESPACE = 'cache';
const PACKAGE = 'redis-operator';
const FIRST = 'redis-operator.v0.1.0';
const NEXT = 'redis-operator.v0.2.0';
const CLUSTERS = `/apis/cache.example.com/v1/namespaces/${APP_NAMESPACE}/redisclusters`;
const CRD = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/redisclusters.cache.example.com';

interface RedisCluster {
  readonly metadata: { readonly name: string; readonly generation: number };
  readonly spec: { readonly size: number; readonly config?: Readonly<Record<string, string>> };
  readonly status?: {
    readonly conditions?: readonly Condition[];
    readonly clusterState?: string;
    readonly slotsAssigned?: number;
    readonly nodes?: readonly string[];
  };
}

const world = useOlmWorld({
  catalogDir: () => releasedData.catalogConfigs,
  delivery: 'content-image',
  bundleImages: true,
  images: { operator: 'operators/redis', repository: 'redis-operator', versions: ['0.1.0', '0.2.0'] },
});
let cluster: LocalCluster;
let rest: KubeRest;

beforeAll(async () => {
  ({ cluster, rest } = world());
  await createInstallNamespace(rest, OPERATOR_NAMESPACE);
  await rest.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: APP_NAMESPACE } },
  });
});

interface RegistryPod {
  readonly spec: {
    readonly initContainers?: readonly { name: string; image: string }[];
    readonly containers: readonly { image: string }[];
  };
  readonly status?: { readonly containerStatuses?: readonly { ready: boolean }[] };
}

const operator = () => operatorPod(rest, OPERATOR_NAMESPACE, 'redis-operator-controller-manager');

/** The RedisCluster once it is Available with all slots served at its current generation. */
function healthyOrThrow(redis: RedisCluster): RedisCluster {
  const available = redis.status?.conditions?.find((c) => c.type === 'Available');
  if (
    available?.status === 'True' &&
    available.observedGeneration === redis.metadata.generation &&
    redis.status?.clusterState === 'ok' &&
    redis.status.slotsAssigned === 16384
  ) {
    return redis;
  }
  throw new Error(`generation ${redis.metadata.generation}, status ${JSON.stringify(redis.status)}`);
}

describe('the Redis operator through OLM', () => {
  it('publishes a catalog-only image: OLM extracts the catalog and serves it with its opm image', async () => {
    const image = world().catalogImage ?? '';
    const published = await publishCatalog({
      name: 'opkit',
      namespace: 'olm',
      image,
      extractContent: '/configs',
      kubeconfigPath: cluster.kubeconfigPath,
    });
    expect(published.stderr).toBe('');
    expect(published.code).toBe(0);
    const pods = await rest.request<{ items: RegistryPod[] }>('GET', '/api/v1/namespaces/olm/pods', {
      query: { labelSelector: 'olm.catalogSource=opkit' },
    });
    expect(pods.items).toHaveLength(1);
    const pod = pods.items[0]!;
    // OLM's util image copies copy-content out, which copies the catalog out of ours; opm serves it.
    expect(pod.spec.initContainers?.map((c) => [c.name, c.image])).toEqual([
      ['extract-utilities', expect.stringMatching(/^quay\.io\/operator-framework\/olm:v/)],
      ['extract-content', image],
    ]);
    expect(pod.spec.containers[0]?.image).toMatch(/^quay\.io\/operator-framework\/opm:v/);
    expect(pod.status?.containerStatuses?.[0]?.ready).toBe(true);
  });

  it('installs 0.1.0 from channel stable-v0, and the operator runs a Redis Cluster with its ServiceAccount', async () => {
    await subscribe(rest, {
      namespace: OPERATOR_NAMESPACE,
      packageName: PACKAGE,
      channel: 'stable-v0',
      source: 'opkit',
      sourceNamespace: 'olm',
      startingCSV: FIRST,
      // The operand image this cluster serves (a user would pin their mirror's image the same way).
      env: { RELATED_IMAGE_REDIS: 'docker.io/library/redis:7.0' },
    });
    expect(await approveNextInstallPlan(rest, OPERATOR_NAMESPACE, PACKAGE)).toEqual([FIRST]);
    await waitForCsvSucceeded(rest, OPERATOR_NAMESPACE, FIRST);
    expect(await bundleUnpacks(rest, 'olm')).toContainEqual({
      bundleImage: world().bundleImages.get(`${PACKAGE}/0.1.0`),
      succeeded: true,
    });
    const crd = await rest.request<CustomResourceDefinition>('GET', CRD);
    expect(crd.status.conditions.find((c) => c.type === 'Established')?.status).toBe('True');
    expect(crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties).not.toHaveProperty(
      'config',
    );

    const manager = await operator();
    expect(manager.image).toBe('registry.example/redis-operator:0.1.0');
    await rest.request('POST', CLUSTERS, {
      body: {
        apiVersion: 'cache.example.com/v1',
        kind: 'RedisCluster',
        metadata: { name: 'sessions' },
        spec: { size: 6 },
      },
    });
    const redis = await explainedBy(
      manager,
      eventually(
        'RedisCluster sessions to be healthy',
        async () => healthyOrThrow(await rest.request<RedisCluster>('GET', `${CLUSTERS}/sessions`)),
        { timeoutMs: 150_000, intervalMs: 1000 },
      ),
    );
    expect(redis.status?.nodes).toHaveLength(6);
    expect(await manager.log()).not.toMatch(RBAC_DENIED);
  });

  it('upgrades to 0.2.0 along replaces; the cluster keeps running and spec.config is served', async () => {
    expect(await approveNextInstallPlan(rest, OPERATOR_NAMESPACE, PACKAGE)).toEqual([NEXT]);
    const upgraded = await waitForCsvSucceeded(rest, OPERATOR_NAMESPACE, NEXT);
    expect(upgraded.spec.replaces).toBe(FIRST);
    await waitForDeletion(
      rest,
      `${OLM_V1ALPHA1}/namespaces/${OPERATOR_NAMESPACE}/clusterserviceversions/${FIRST}`,
    );
    const csvs = await rest.request<{ items: ClusterServiceVersion[] }>(
      'GET',
      `${OLM_V1ALPHA1}/namespaces/${OPERATOR_NAMESPACE}/clusterserviceversions`,
    );
    expect(csvs.items.map((c) => c.metadata.name)).toEqual([NEXT]);
    const crd = await rest.request<CustomResourceDefinition>('GET', CRD);
    expect(crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties).toHaveProperty('config');

    const manager = await operator();
    expect(manager.image).toBe('registry.example/redis-operator:0.2.0');
    await explainedBy(
      manager,
      eventually(
        'RedisCluster sessions to stay healthy under the upgraded operator',
        async () => healthyOrThrow(await rest.request<RedisCluster>('GET', `${CLUSTERS}/sessions`)),
        { timeoutMs: 60_000, intervalMs: 1000 },
      ),
    );
    const patched = await rest.request<RedisCluster>('PATCH', `${CLUSTERS}/sessions`, {
      body: { spec: { config: { 'maxmemory-policy': 'allkeys-lru' } } },
      contentType: 'application/merge-patch+json',
    });
    expect(patched.spec.config).toEqual({ 'maxmemory-policy': 'allkeys-lru' });
    expect(await manager.log()).not.toMatch(RBAC_DENIED);
  });
});
