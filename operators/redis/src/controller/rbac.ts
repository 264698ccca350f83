import type { PolicyRule } from '@opkit/controller-runtime';

/**
 * Everything the RedisCluster controller does with the API, declared next to it (as kubebuilder markers are);
 * `nx run redis:manifests` turns it into config/rbac/role.yaml. Keep it in step with the controller.
 */
export const redisClusterControllerRbac: readonly PolicyRule[] = [
  {
    apiGroups: ['cache.example.com'],
    resources: ['redisclusters'],
    verbs: ['get', 'list', 'watch', 'update', 'patch'],
  },
  {
    apiGroups: ['cache.example.com'],
    resources: ['redisclusters/status'],
    verbs: ['get', 'update', 'patch'],
  },
  {
    apiGroups: ['apps'],
    resources: ['statefulsets'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  },
  {
    apiGroups: [''],
    resources: ['services', 'configmaps', 'secrets'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  },
  {
    apiGroups: ['policy'],
    resources: ['poddisruptionbudgets'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  },
  // delete: the rolling restart (pods are recreated by the StatefulSet from the current template).
  { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'delete'] },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];
