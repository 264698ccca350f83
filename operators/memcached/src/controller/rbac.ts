import { type PolicyRule, storageVersionMigrationRbac } from '@opkit/controller-runtime';

/**
 * Everything the Memcached controller does with the API, declared next to it (as kubebuilder markers are);
 * `nx run memcached:manifests` turns it into config/rbac/role.yaml. Keep it in step with the code below.
 */
export const memcachedControllerRbac: readonly PolicyRule[] = [
  {
    apiGroups: ['cache.example.com'],
    resources: ['memcacheds'],
    verbs: ['get', 'list', 'watch', 'update', 'patch'],
  },
  { apiGroups: ['cache.example.com'], resources: ['memcacheds/status'], verbs: ['get', 'update', 'patch'] },
  { apiGroups: ['cache.example.com'], resources: ['memcacheds/finalizers'], verbs: ['update'] },
  {
    apiGroups: ['apps'],
    resources: ['deployments'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  },
  {
    apiGroups: [''],
    resources: ['services'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  },
  {
    apiGroups: ['policy'],
    resources: ['poddisruptionbudgets'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  },
  { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
  // Rewriting objects stored in an older version of the CRD, then trimming its status.storedVersions.
  ...storageVersionMigrationRbac('memcacheds.cache.example.com'),
];

/** What the operator needs in its own namespace: the alerting rule (when Prometheus Operator is installed). */
export const monitoringRbac: readonly PolicyRule[] = [
  {
    apiGroups: ['monitoring.coreos.com'],
    resources: ['prometheusrules'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'],
  },
  { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get'] },
];
