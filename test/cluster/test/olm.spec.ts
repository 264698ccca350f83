import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalCluster, startCluster } from '../src/cluster.js';
import { KubeRest } from '../src/kube/rest.js';
import { eventually } from '../src/testing/index.js';

// OLM on a cluster of its own: started with `olm: true`, even with CI=true in the environment.
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
  it('serves OLM’s APIs and runs its operators, which act on CatalogSources', async () => {
    const group = await rest.request<{ status?: { namespaces?: string[] } }>(
      'GET',
      '/apis/operators.coreos.com/v1/namespaces/operators/operatorgroups/global-operators',
    );
    expect(group.status?.namespaces).toEqual(['']);
    expect(cluster.componentPids().olm).toBeGreaterThan(0);
    expect(cluster.componentPids().catalog).toBeGreaterThan(0);

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
