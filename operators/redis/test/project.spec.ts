import { join } from 'node:path';
import { configManifests, sampleProblems } from '@opkit/controller-tools/manifests';
import { describeOperatorProject, eventually } from '@opkit/test-cluster/vitest';
import { expect } from 'vitest';
import { manifestsSpec } from '../src/manifests/generate.js';

const root = join(import.meta.dirname, '..');

describeOperatorProject({
  root,
  name: 'redis',
  generatedConfig: () => configManifests(manifestsSpec),
  sampleProblems: () => sampleProblems(root, manifestsSpec),
  operandImageEnv: 'RELATED_IMAGE_REDIS',
  expectedKinds: [
    'ClusterRole/redis-operator-manager-role',
    'ClusterRole/redis-operator-rediscluster-editor-role',
    'ClusterRole/redis-operator-rediscluster-viewer-role',
    'ClusterRole/redis-operator-metrics-auth-role',
    'ClusterRole/redis-operator-metrics-reader',
    'ClusterRoleBinding/redis-operator-manager-rolebinding',
    'ClusterRoleBinding/redis-operator-metrics-auth-rolebinding',
    'Service/redis-operator-controller-manager-metrics-service',
    'CustomResourceDefinition/redisclusters.cache.example.com',
    'Deployment/redis-operator-controller-manager',
    'Namespace/redis-operator-system',
    'Role/redis-operator-leader-election-role',
    'RoleBinding/redis-operator-leader-election-rolebinding',
    'ServiceAccount/redis-operator-controller-manager',
  ],
  deployed: {
    does: 'forms a Redis Cluster',
    metric: 'redis_cluster_slots_assigned',
    exercise: async ({ rest, namespace: ns }) => {
      // Six redis pods form a healthy cluster.
      await rest.request('POST', `/apis/cache.example.com/v1/namespaces/${ns}/redisclusters`, {
        body: {
          apiVersion: 'cache.example.com/v1',
          kind: 'RedisCluster',
          metadata: { name: 'deployed' },
          spec: { size: 6 },
        },
      });
      const healthy = await eventually(
        'the RedisCluster to be healthy',
        async () => {
          const r = await rest.request<{
            status?: {
              clusterState?: string;
              slotsAssigned?: number;
              nodes?: string[];
              conditions?: { type: string; status: string }[];
            };
          }>('GET', `/apis/cache.example.com/v1/namespaces/${ns}/redisclusters/deployed`);
          const available = r.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True');
          return available && r.status?.clusterState === 'ok' && r.status.slotsAssigned === 16384
            ? r
            : undefined;
        },
        { timeoutMs: 180_000, intervalMs: 1000 },
      );
      expect(healthy.status?.nodes).toHaveLength(6);
    },
  },
});
