import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeRest, type LocalCluster, releasedData } from '@opkit/test-cluster';
import { eventually, RBAC_DENIED } from '@opkit/test-cluster/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Condition, CustomResourceDefinition, Deployment } from '../src/kube-types.js';
import { type CatalogSource, type ClusterServiceVersion, OLM_V1ALPHA1 } from '../src/olm-types.js';
import { useOlmWorld } from '../src/olm-world.js';
import { explainedBy, operatorPod } from '../src/operator-pod.js';
import { publishCatalog } from '../src/opkit-cli.js';
import { canI, writeServiceAccountKubeconfig } from '../src/service-account.js';
import { explainedByService } from '../src/service-routing.js';
import {
  approveNextInstallPlan,
  bundleUnpacks,
  createInstallNamespace,
  resolveAgain,
  subscribe,
  waitForCsvSucceeded,
  waitForDeletion,
} from '../src/subscriptions.js';

// Our catalog as a serving catalog image that OLM runs as its registry pod, naming our released bundles by their
// pushed bundle images: the Memcached operator is installed at its first released version by a manually approved
// Subscription (OLM's bundle-unpack Job pulls the bundle image), runs with nothing but the rights OLM gave its
// ServiceAccount, and is upgraded along the channel's `replaces` edges: to 0.2.0, then to 0.3.0, which stores
// API v1beta1 and serves v1alpha1 through its conversion webhook, with certificates OLM provisions.

const OPERATOR_NAMESPACE = 'memcached-system';
const APP_NAMESPACE = 'cache';
const PACKAGE = 'memcached-operator';
const FIRST = 'memcached-operator.v0.1.0';
const NEXT = 'memcached-operator.v0.2.0';
const THIRD = 'memcached-operator.v0.3.0';
const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/memcacheds.cache.example.com';
const MEMCACHEDS_V1BETA1 = `/apis/cache.example.com/v1beta1/namespaces/${APP_NAMESPACE}/memcacheds`;
const MEMCACHEDS = `/apis/cache.example.com/v1alpha1/namespaces/${APP_NAMESPACE}/memcacheds`;
// The Service OLM creates for the webhooks of the Deployment that serves them.
const WEBHOOK_SERVICE = 'memcached-operator-controller-manager-service';
const DEPLOYMENT = `/apis/apps/v1/namespaces/${OPERATOR_NAMESPACE}/deployments/memcached-operator-controller-manager`;

interface Memcached {
  readonly metadata: { readonly name: string; readonly generation: number };
  readonly spec: { readonly size: number; readonly memoryLimitMB?: number };
  readonly status?: { readonly conditions?: readonly Condition[] };
}

const world = useOlmWorld({
  catalogDir: () => releasedData.catalogConfigs,
  delivery: 'serving-image',
  bundleImages: true,
  // 0.1.0 and 0.2.0 run the code they were released with (the v1alpha1 controller), 0.3.0 the working tree.
  images: {
    operator: 'operators/memcached',
    repository: 'memcached-operator',
    versions: ['0.1.0', '0.2.0', '0.3.0'],
    fromReleaseCommits: ['0.1.0', '0.2.0'],
  },
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

  it('upgrades to 0.3.0: OLM wires the webhooks, every Memcached stored as v1alpha1 keeps working and is migrated', async () => {
    // A second object stored as v1alpha1 under 0.2.0.
    await rest.request('POST', MEMCACHEDS, {
      body: {
        apiVersion: 'cache.example.com/v1alpha1',
        kind: 'Memcached',
        metadata: { name: 'legacy' },
        spec: { size: 1 },
      },
    });
    await eventually(
      'Memcached legacy to be Available',
      async () => availableOrThrow(await rest.request<Memcached>('GET', `${MEMCACHEDS}/legacy`)),
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    const before = await rest.request<CustomResourceDefinition & { status: { storedVersions: string[] } }>(
      'GET',
      CRD_PATH,
    );
    expect(before.status.storedVersions).toEqual(['v1alpha1']);

    // OLM tried to resolve 0.3.0 while 0.1.0 was still being replaced, and does not retry that on its own.
    await resolveAgain(rest, OPERATOR_NAMESPACE, PACKAGE);
    expect(await approveNextInstallPlan(rest, OPERATOR_NAMESPACE, PACKAGE)).toEqual([THIRD]);
    await waitForCsvSucceeded(rest, OPERATOR_NAMESPACE, THIRD);
    expect(await bundleUnpacks(rest, 'olm')).toContainEqual({
      bundleImage: world().bundleImages.get(`${PACKAGE}/0.3.0`),
      succeeded: true,
    });
    const manager = await operator();
    expect(manager.image).toBe('registry.example/memcached-operator:0.3.0');

    // OLM pointed the CRD's conversion at the operator's webhook, with the CA of the certificate it issued.
    const crd = await rest.request<{
      spec: {
        conversion?: {
          strategy: string;
          webhook?: { clientConfig?: { caBundle?: string; service?: { path?: string } } };
        };
      };
      status: { storedVersions: string[] };
    }>('GET', CRD_PATH);
    expect(crd.spec.conversion?.strategy).toBe('Webhook');
    expect(crd.spec.conversion?.webhook?.clientConfig?.service?.path).toBe('/convert');
    expect(crd.spec.conversion?.webhook?.clientConfig?.caBundle).toBeTruthy();

    // Both objects are served at both versions, converted; the migration rewrote them as v1beta1.
    type Beta = {
      metadata: { name: string; generation: number };
      spec: Record<string, unknown>;
      status?: Memcached['status'];
    };
    const listed = async (path: string) =>
      (await rest.request<{ items: { metadata: { name: string } }[] }>('GET', path)).items
        .map((m) => m.metadata.name)
        .sort();
    // Until kube-proxy routes to the new pod, the API server's cache of the CRD cannot re-initialize (429); it
    // retries with a growing back-off, which on a loaded 2-core machine has taken over a minute.
    await explainedBy(
      manager,
      explainedByService(
        rest,
        { namespace: OPERATOR_NAMESPACE, name: WEBHOOK_SERVICE },
        eventually('both versions to be served', async () => (await listed(MEMCACHEDS_V1BETA1)).length > 0, {
          timeoutMs: 120_000,
        }),
      ),
    );
    expect(await listed(MEMCACHEDS)).toEqual(['legacy', 'sessions']);
    expect(await listed(MEMCACHEDS_V1BETA1)).toEqual(['legacy', 'sessions']);
    const sessions = await rest.request<Beta>('GET', `${MEMCACHEDS_V1BETA1}/sessions`);
    expect(sessions.spec).toMatchObject({ replicas: 2, memory: '128Mi', port: { containerPort: 11211 } });
    await explainedBy(
      manager,
      eventually(
        'status.storedVersions to be trimmed to v1beta1',
        async () => {
          const c = await rest.request<{ status: { storedVersions: string[] } }>('GET', CRD_PATH);
          return c.status.storedVersions.join(',') === 'v1beta1' || undefined;
        },
        { timeoutMs: 90_000, intervalMs: 1000 },
      ),
    );

    // A round trip v1beta1 → v1alpha1 → v1beta1 loses nothing: v1alpha1 cannot say 1G, yet it comes back.
    await rest.request('PATCH', `${MEMCACHEDS_V1BETA1}/sessions`, {
      body: { spec: { memory: '1G' } },
      contentType: 'application/merge-patch+json',
    });
    await eventually('an update at v1alpha1', async () => {
      const old = await rest.request<Memcached & { spec: Record<string, unknown> }>(
        'GET',
        `${MEMCACHEDS}/sessions`,
      );
      expect(old.spec.memoryLimitMB).toBe(954);
      return rest.request('PUT', `${MEMCACHEDS}/sessions`, {
        body: { ...old, spec: { ...old.spec, size: 3 } },
      });
    });
    const roundTripped = await rest.request<Beta>('GET', `${MEMCACHEDS_V1BETA1}/sessions`);
    expect(roundTripped.spec).toMatchObject({ replicas: 3, memory: '1G' });
    await explainedBy(
      manager,
      eventually(
        'Memcached sessions to be Available with 3 servers',
        async () => {
          const m = availableOrThrow(await rest.request<Memcached>('GET', `${MEMCACHEDS_V1BETA1}/sessions`));
          const operand = await rest.request<Deployment>(
            'GET',
            `/apis/apps/v1/namespaces/${APP_NAMESPACE}/deployments/sessions`,
          );
          return operand.spec.replicas === 3 &&
            operand.spec.template.spec.containers[0]?.args?.includes('--memory-limit=954')
            ? m
            : undefined;
        },
        { timeoutMs: 90_000, intervalMs: 500 },
      ),
    );

    // The validating webhook OLM registered refuses what the schema alone would accept.
    const refused = await rest
      .request('POST', MEMCACHEDS_V1BETA1, {
        body: {
          apiVersion: 'cache.example.com/v1beta1',
          kind: 'Memcached',
          metadata: { name: 'tight' },
          spec: { replicas: 1, memory: '256Mi', resources: { limits: { memory: '256Mi' } } },
        },
      })
      .catch((error: Error) => error.message);
    expect(refused).toContain(
      'spec.memory: Invalid value: "256Mi": with 32Mi for connections it must fit in resources.limits.memory (256Mi)',
    );
    expect(await manager.log()).not.toMatch(RBAC_DENIED);
  });
});
