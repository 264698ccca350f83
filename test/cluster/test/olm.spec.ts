import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalCluster, startCluster } from '../src/cluster.js';
import { KubeRest } from '../src/kube/rest.js';
import { eventually } from '../src/testing/index.js';

// OLM on a cluster of its own: started with `olm: true`, installed as `opkit olm install` does and running in
// pods on the real node from the OLM image built into the cluster's registry.
let cluster: LocalCluster;
let rest: KubeRest;

beforeAll(async () => {
  cluster = await startCluster({ olm: true });
  rest = new KubeRest(cluster.kubeConfig);
});

afterAll(async () => {
  rest?.close();
  await cluster?.stop();
});

describe('a control plane with OLM', () => {
  it('serves OLM’s APIs and runs its operators in pods, which act on CatalogSources', async () => {
    const group = await rest.request<{ status?: { namespaces?: string[] } }>(
      'GET',
      '/apis/operators.coreos.com/v1/namespaces/operators/operatorgroups/global-operators',
    );
    expect(group.status?.namespaces).toEqual(['']);
    expect(cluster.componentPids().olm).toBeUndefined();
    const pods = await rest.request<{
      items: { spec: { containers: { image: string; command?: string[] }[] }; status: { phase: string } }[];
    }>('GET', '/api/v1/namespaces/olm/pods');
    expect(
      pods.items
        .map((p) => [p.spec.containers[0]?.command?.[0], p.spec.containers[0]?.image, p.status.phase])
        .sort(),
    ).toEqual([
      ['/bin/catalog', 'quay.io/operator-framework/olm:v0.46.0', 'Running'],
      ['/bin/olm', 'quay.io/operator-framework/olm:v0.46.0', 'Running'],
    ]);

    // A catalog at an address where nothing listens: the catalog operator dials it and reports the failure.
    await rest.request('POST', '/apis/operators.coreos.com/v1alpha1/namespaces/olm/catalogsources', {
      body: {
        apiVersion: 'operators.coreos.com/v1alpha1',
        kind: 'CatalogSource',
        metadata: { name: 'nowhere', namespace: 'olm' },
        spec: { sourceType: 'grpc', address: '127.0.0.1:9' },
      },
    });
    const state = await eventually(
      'the catalog operator to report the connection state',
      async () => {
        const source = await rest.request<{ status?: { connectionState?: { lastObservedState?: string } } }>(
          'GET',
          '/apis/operators.coreos.com/v1alpha1/namespaces/olm/catalogsources/nowhere',
        );
        return source.status?.connectionState?.lastObservedState;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(state).not.toBe('READY');
  });
});
