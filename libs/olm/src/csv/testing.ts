import type { ClusterServiceVersion } from '../manifest/cluster-service-version.js';
import type { Manifest } from '../manifest/manifest.js';

/**
 * A small operator for tests: what `kubectl kustomize config/manifests` renders for a one-CRD operator with
 * kubebuilder's layout (namespace `demo-system`, name prefix `demo-`).
 */
// Long on purpose: one literal of the rendered objects, kept whole so it reads like the YAML it stands for.
export function demoOperatorObjects(): Manifest[] {
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo-system' } },
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gizmos.demo.example.com' },
      spec: {
        group: 'demo.example.com',
        scope: 'Namespaced',
        names: { kind: 'Gizmo', listKind: 'GizmoList', plural: 'gizmos', singular: 'gizmo' },
        versions: [
          {
            name: 'v1alpha1',
            served: true,
            storage: false,
            schema: { openAPIV3Schema: { type: 'object', description: 'Gizmo is the old API.' } },
          },
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                description: 'Gizmo is a thing the demo operator runs.',
                properties: {
                  spec: {
                    type: 'object',
                    properties: {
                      replicas: { type: 'integer', description: 'How many gizmos.' },
                      tuning: {
                        type: 'object',
                        properties: { maxConnections: { type: 'integer', description: 'Connection cap.' } },
                      },
                    },
                  },
                  status: {
                    type: 'object',
                    properties: { conditions: { type: 'array', description: 'Conditions.' } },
                  },
                },
              },
            },
          },
        ],
      },
    },
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'demo-controller-manager', namespace: 'demo-system' },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'demo-leader-election-role', namespace: 'demo-system' },
      rules: [
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'demo-manager-role' },
      rules: [{ apiGroups: ['demo.example.com'], resources: ['gizmos'], verbs: ['get', 'list', 'watch'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'demo-gizmo-viewer-role' },
      rules: [{ apiGroups: ['demo.example.com'], resources: ['gizmos'], verbs: ['get'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'demo-leader-election-rolebinding', namespace: 'demo-system' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'demo-leader-election-role' },
      subjects: [{ kind: 'ServiceAccount', name: 'demo-controller-manager', namespace: 'demo-system' }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'demo-manager-rolebinding' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'demo-manager-role' },
      subjects: [
        { kind: 'ServiceAccount', name: 'demo-controller-manager', namespace: 'demo-system' },
        { kind: 'Group', name: 'auditors' },
      ],
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'demo-metrics', namespace: 'demo-system' },
      spec: { selector: { app: 'demo' }, ports: [{ port: 8443 }] },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'demo-controller-manager', namespace: 'demo-system', labels: { app: 'demo' } },
      spec: {
        selector: { matchLabels: { app: 'demo' } },
        template: {
          metadata: { labels: { app: 'demo' } },
          spec: {
            serviceAccountName: 'demo-controller-manager',
            containers: [
              {
                name: 'manager',
                image: 'controller:latest',
                env: [
                  { name: 'RELATED_IMAGE_GIZMO_SERVER', value: 'registry.example/gizmo-server:2.0' },
                  { name: 'WATCH_NAMESPACE', value: '' },
                ],
                resources: { requests: { cpu: '10m', memory: '64Mi' } },
              },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'demo.example.com/v1',
      kind: 'Gizmo',
      metadata: { name: 'gizmo-sample' },
      spec: { replicas: 2 },
    },
  ];
}

/** A hand-written base CSV for the demo operator, as kept in `config/manifests/bases/`. */
export function demoBaseCsv(): ClusterServiceVersion {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: {
      name: 'demo-operator.v0.0.0',
      namespace: 'placeholder',
      annotations: {
        capabilities: 'Seamless Upgrades',
        categories: 'Developer Tools',
        'example.com/team': 'gizmos',
      },
      labels: { 'operatorframework.io/arch.amd64': 'supported' },
    },
    spec: {
      displayName: 'Demo Operator',
      description: 'Runs gizmos.\n\nHand-written *markdown*.',
      icon: [{ base64data: 'PHN2Zy8+', mediatype: 'image/svg+xml' }],
      keywords: ['gizmo', 'demo'],
      maintainers: [{ name: 'Demo Team', email: 'demo@example.com' }],
      links: [{ name: 'Docs', url: 'https://example.com/demo' }],
      provider: { name: 'Example Inc.', url: 'https://example.com' },
      maturity: 'beta',
      minKubeVersion: '1.28.0',
      replaces: 'demo-operator.v0.0.9',
      installModes: [
        { type: 'OwnNamespace', supported: true },
        { type: 'SingleNamespace', supported: true },
        { type: 'MultiNamespace', supported: false },
        { type: 'AllNamespaces', supported: true },
      ],
      customresourcedefinitions: {
        owned: [
          {
            name: 'gizmos.demo.example.com',
            version: 'v1',
            kind: 'Gizmo',
            displayName: 'Gizmo',
            description: 'A gizmo, described by hand.',
            resources: [{ kind: 'Deployment', name: '', version: 'v1' }],
            specDescriptors: [
              {
                path: 'replicas',
                displayName: 'Replicas',
                'x-descriptors': ['urn:alm:descriptor:com.tectonic.ui:podCount'],
              },
              { path: 'tuning.maxConnections' },
            ],
            statusDescriptors: [{ path: 'conditions' }],
          },
        ],
        required: [
          {
            name: 'widgets.example.com',
            version: 'v1',
            kind: 'Widget',
            displayName: 'Widget',
            description: 'Needed.',
          },
        ],
      },
      relatedImages: [{ name: 'docs', image: 'registry.example/demo-docs:1.0' }],
      install: { strategy: 'deployment', spec: { deployments: [] } },
    },
  };
}
