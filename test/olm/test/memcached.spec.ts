import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeRest, type LocalCluster } from '@opkit/test-cluster';
import { eventually, RBAC_DENIED } from '@opkit/test-cluster/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Condition, CustomResourceDefinition, Deployment } from '../src/kube-types.js';
import { type CatalogSource, type ClusterServiceVersion, OLM_V1ALPHA1 } from '../src/olm-types.js';
import { useOlmWorld } from '../src/olm-world.js';
import { explainedBy, operatorPod } from '../src/operator-pod.js';
import { publishCatalog, repositoryRoot } from '../src/opkit-cli.js';
import { canI, writeServiceAccountKubeconfig } from '../src/service-account.js';
import {
  approveNextInstallPlan,
  bundleUnpacks,
  createInstallNamespace,
  subscribe,
  waitForCsvSucceeded,
  waitForDeletion,
} from '../src/subscriptions.js';

// Our catalog as a serving catalog image that OLM runs as its registry pod, naming our released bundles by their
// pushed bundle images: the Memcached operator is installed at its first released version by a manually approved
// Subscription (OLM's bundle-unpack Job pulls the bundle image), runs with nothing but the rights OLM gave its
// ServiceAccount, and is upgraded along the channel's `replaces` edge.

const OPERATOR_NAMESPACE = 'memcached-system';
const APP_NAMESPACE = 'cache';
const PACKAGE = 'memcached-operator';
const FIRST = 'memcached-operator.v0.1.0';
const NEXT = 'memcached-operator.v0.2.0';
const MEMCACHEDS = `/apis/cache.example.com/v1alpha1/namespaces/${APP_NAMESPACE}/memcacheds`;
const DEPLOYMENT = `/apis/apps/v1/namespaces/${OPERATOR_NAMESPACE}/deployments/memcached-operator-controller-manager`;

interface Memcached {
  readonly metadata: { readonly name: string; readonly generation: number };
  readonly spec: { readonly size: number; readonly memoryLimitMB?: number };
  readonly status?: { readonly conditions?: readonly Condition[] };
}

const world = useOlmWorld({
  catalogDir: () => join(repositoryRoot, 'catalog', 'configs'),
  delivery: 'serving-image',
  bundleImages: true,
  images: { operator: 'operators/memcached', repository: 'memcached-operator', versions: ['0.1.0', '0.2.0'] },
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

const operator = () => operatorPod(rest, OPERATOR_NAMESPACE, 'memcached-operator-controller-manager');

/** The Memcached once it is Available at its current generation; otherwise throws with its status. */
function availableOrThrow(memcached: Memcached): Memcached {
  const condition = memcached.status?.conditions?.find((c) => c.type === 'Available');
  if (condition?.status === 'True' && condition.observedGeneration === memcached.metadata.generation) {
    return memcached;
  }
  throw new Error(`generation ${memcached.metadata.generation}, status ${JSON.stringify(memcached.status)}`);
}

describe('the Memcached operator through OLM', () => {
  it('publishes the catalog image as a CatalogSource: OLM runs it as a registry pod that reports READY', async () => {
    const image = world().catalogImage ?? '';
    const result = await publishCatalog({
      name: 'opkit',
      namespace: 'olm',
      image,
      kubeconfigPath: cluster.kubeconfigPath,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const source = await rest.request<CatalogSource>(
      'GET',
      `${OLM_V1ALPHA1}/namespaces/olm/catalogsources/opkit`,
    );
    expect(source.status?.connectionState?.lastObservedState).toBe('READY');
    // The registry pod runs our image, and its grpc_health_probe probes pass.
    const pods = await rest.request<{
      items: {
        spec: { containers: { image: string }[] };
        status?: { containerStatuses?: { ready: boolean }[] };
      }[];
    }>('GET', '/api/v1/namespaces/olm/pods', { query: { labelSelector: 'olm.catalogSource=opkit' } });
    expect(pods.items.map((p) => p.spec.containers[0]?.image)).toEqual([image]);
    expect(pods.items[0]?.status?.containerStatuses?.[0]?.ready).toBe(true);
  });

  it('installs the first released version by a manually approved Subscription', async () => {
    await subscribe(rest, {
      namespace: OPERATOR_NAMESPACE,
      packageName: PACKAGE,
      channel: 'alpha',
      source: 'opkit',
      sourceNamespace: 'olm',
      startingCSV: FIRST,
      // The operand image this cluster serves (a user would pin their mirror's image the same way).
      env: { RELATED_IMAGE_MEMCACHED: 'docker.io/library/memcached:1.6' },
    });
    expect(await approveNextInstallPlan(rest, OPERATOR_NAMESPACE, PACKAGE)).toEqual([FIRST]);
    await waitForCsvSucceeded(rest, OPERATOR_NAMESPACE, FIRST);
    // OLM took the bundle from its image, by the digest the catalog names, with an unpack Job in the node.
    expect(await bundleUnpacks(rest, 'olm')).toContainEqual({
      bundleImage: world().bundleImages.get(`${PACKAGE}/0.1.0`),
      succeeded: true,
    });

    const crd = await rest.request<CustomResourceDefinition>(
      'GET',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/memcacheds.cache.example.com',
    );
    expect(crd.status.conditions.find((c) => c.type === 'Established')?.status).toBe('True');
    expect(
      Object.keys(crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties).sort(),
    ).toEqual(['containerPort', 'size']);
    const deployment = await rest.request<Deployment>('GET', DEPLOYMENT);
    expect(deployment.status?.availableReplicas).toBe(1);
    // The operator runs in a pod from the 0.1.0 image the bundle names, pulled by the node.
    const pod = await operator();
    expect(pod.image).toBe('registry.example/memcached-operator:0.1.0');
    expect(pod.imageID).toMatch(/^registry\.example\/memcached-operator@sha256:[0-9a-f]{64}$/);
  });

  it('runs the operator in its pod with OLM’s ServiceAccount: the CSV’s permissions are enough and no more', async () => {
    const deployment = await rest.request<Deployment>('GET', DEPLOYMENT);
    const kubeconfigPath = join(cluster.dir, 'rights.kubeconfig');
    await writeServiceAccountKubeconfig({
      rest,
      admin: cluster.kubeConfig,
      namespace: OPERATOR_NAMESPACE,
      serviceAccount: deployment.spec.template.spec.serviceAccountName as string,
      path: kubeconfigPath,
    });
    const asOperator = new KubeConfig();
    asOperator.loadFromFile(kubeconfigPath);
    const operatorRest = new KubeRest(asOperator);
    try {
      // Granted by the CSV (with an all-namespaces OperatorGroup OLM grants `permissions` in every namespace too).
      expect(
        await canI(operatorRest, {
          verb: 'update',
          group: 'cache.example.com',
          resource: 'memcacheds',
          subresource: 'status',
          namespace: APP_NAMESPACE,
        }),
      ).toBe(true);
      expect(
        await canI(operatorRest, {
          verb: 'create',
          group: 'apps',
          resource: 'deployments',
          namespace: APP_NAMESPACE,
        }),
      ).toBe(true);
      expect(
        await canI(operatorRest, {
          verb: 'update',
          group: 'coordination.k8s.io',
          resource: 'leases',
          namespace: OPERATOR_NAMESPACE,
        }),
      ).toBe(true);
      // Not listed, so not granted.
      expect(await canI(operatorRest, { verb: 'get', resource: 'secrets', namespace: APP_NAMESPACE })).toBe(
        false,
      );
      expect(
        await canI(operatorRest, {
          verb: 'delete',
          group: 'cache.example.com',
          resource: 'memcacheds',
          namespace: APP_NAMESPACE,
        }),
      ).toBe(false);
      expect(
        await canI(operatorRest, { verb: 'create', resource: 'configmaps', namespace: OPERATOR_NAMESPACE }),
      ).toBe(false);
    } finally {
      operatorRest.close();
    }

    const manager = await operator();
    await rest.request('POST', MEMCACHEDS, {
      body: {
        apiVersion: 'cache.example.com/v1alpha1',
        kind: 'Memcached',
        metadata: { name: 'sessions' },
        // The 0.1.0 API does not know memoryLimitMB: the API server prunes it.
        spec: { size: 2, memoryLimitMB: 128 },
      },
    });
    const reconciled = await explainedBy(
      manager,
      eventually(
        'Memcached sessions to be Available',
        async () => {
          return availableOrThrow(await rest.request<Memcached>('GET', `${MEMCACHEDS}/sessions`));
        },
        { timeoutMs: 90_000, intervalMs: 500 },
      ),
    );
    expect(reconciled.spec.memoryLimitMB).toBeUndefined();
    const operand = await rest.request<Deployment & { status?: { readyReplicas?: number } }>(
      'GET',
      `/apis/apps/v1/namespaces/${APP_NAMESPACE}/deployments/sessions`,
    );
    expect(operand.spec.replicas).toBe(2);
    expect(await manager.log()).not.toMatch(RBAC_DENIED);
  });

  it('upgrades along replaces when the next InstallPlan is approved; the existing Memcached keeps working', async () => {
    expect(await approveNextInstallPlan(rest, OPERATOR_NAMESPACE, PACKAGE)).toEqual([NEXT]);
    const upgraded = await waitForCsvSucceeded(rest, OPERATOR_NAMESPACE, NEXT);
    expect(upgraded.spec.replaces).toBe(FIRST);
    expect(await bundleUnpacks(rest, 'olm')).toContainEqual({
      bundleImage: world().bundleImages.get(`${PACKAGE}/0.2.0`),
      succeeded: true,
    });
    await waitForDeletion(
      rest,
      `${OLM_V1ALPHA1}/namespaces/${OPERATOR_NAMESPACE}/clusterserviceversions/${FIRST}`,
    );
    const csvs = await rest.request<{ items: ClusterServiceVersion[] }>(
      'GET',
      `${OLM_V1ALPHA1}/namespaces/${OPERATOR_NAMESPACE}/clusterserviceversions`,
    );
    expect(csvs.items.map((c) => c.metadata.name)).toEqual([NEXT]);

    // The field 0.2.0 adds is served now, and the operator pod of the upgraded Deployment applies it.
    const manager = await operator();
    expect(manager.image).toBe('registry.example/memcached-operator:0.2.0');
    await rest.request('PATCH', `${MEMCACHEDS}/sessions`, {
      body: { spec: { memoryLimitMB: 128 } },
      contentType: 'application/merge-patch+json',
    });
    const memcached = await explainedBy(
      manager,
      eventually(
        'Memcached sessions to be Available at its new generation',
        async () => {
          return availableOrThrow(await rest.request<Memcached>('GET', `${MEMCACHEDS}/sessions`));
        },
        { timeoutMs: 90_000, intervalMs: 500 },
      ),
    );
    expect(memcached.spec.memoryLimitMB).toBe(128);
    const operand = await rest.request<Deployment>(
      'GET',
      `/apis/apps/v1/namespaces/${APP_NAMESPACE}/deployments/sessions`,
    );
    expect(operand.spec.template.spec.containers[0]!.args).toContain('--memory-limit=128');
    expect(await manager.log()).not.toMatch(RBAC_DENIED);
  });
});
