import type { V1Deployment, V1Pod, V1PodList } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalCluster, startCluster } from '../src/cluster.js';
import { KubeRest } from '../src/kube/rest.js';
import { eventually } from '../src/testing/index.js';

let cluster: LocalCluster;
let rest: KubeRest;

beforeAll(async () => {
  cluster = await startCluster({ realNode: false, nodes: 1 });
  rest = new KubeRest(cluster.kubeConfig);
}, 300_000);
afterAll(async () => {
  rest?.close();
  await cluster?.stop();
});

const ready = (pod: V1Pod) => pod.status?.conditions?.find((c) => c.type === 'Ready');

describe('kwok nodes', () => {
  it('make a pod ready again after the node lifecycle controller marked it not ready, as a kubelet does', async () => {
    const deployment: V1Deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'ready-again', namespace: 'default' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'ready-again' } },
        template: {
          metadata: { labels: { app: 'ready-again' } },
          spec: {
            tolerations: [{ operator: 'Exists' }],
            containers: [{ name: 'server', image: 'memcached:1.6' }],
          },
        },
      },
    };
    await rest.request('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment });
    const pod = await eventually('a ready pod', async () => {
      const list = await rest.request<V1PodList>('GET', '/api/v1/namespaces/default/pods', {
        query: { labelSelector: 'app=ready-again' },
      });
      return list.items.find((p) => ready(p)?.status === 'True');
    });

    // What the controller-manager writes to the pods of a node whose lease expired (an API server away
    // longer than the grace period): Ready False, the containers' own condition untouched.
    const path = `/api/v1/namespaces/default/pods/${pod.metadata?.name}/status`;
    const marked = await rest.request<V1Pod>('PATCH', path, {
      contentType: 'application/strategic-merge-patch+json',
      body: {
        status: {
          conditions: [{ type: 'Ready', status: 'False', reason: 'NodeNotReady', message: 'node not ready' }],
        },
      },
    });
    expect(ready(marked)?.status).toBe('False');

    const again = await eventually('the pod ready again', async () => {
      const current = await rest.request<V1Pod>('GET', path.replace(/\/status$/, ''));
      return ready(current)?.status === 'True' ? current : undefined;
    });
    expect(ready(again)?.reason).toBeUndefined();
    expect(again.status?.conditions?.map((c) => `${c.type}=${c.status}`).sort()).toEqual([
      'ContainersReady=True',
      'Initialized=True',
      'PodScheduled=True',
      'Ready=True',
    ]);
    await eventually('the Deployment available again', async () => {
      const d = await rest.request<V1Deployment>(
        'GET',
        '/apis/apps/v1/namespaces/default/deployments/ready-again',
      );
      return d.status?.readyReplicas === 1;
    });
  });
});
