import { type CrdManifest, olmCrds } from './crds.js';

/** A Kubernetes object of OLM's install, as applied. */
export interface InstallObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Record<string, string>;
  };
  readonly [field: string]: unknown;
}

/** What OLM's install is made of and from which images it runs. */
export interface OlmInstallOptions {
  /** OLM's version, e.g. `0.46.0`. */
  readonly version: string;
  /**
   * OLM's image (its operators, package-server and utilities).
   * @default `quay.io/operator-framework/olm:v<version>`
   */
  readonly image?: string;
  /** opm's image, which the catalog operator runs for bundle extraction and content-extracting catalogs. */
  readonly opmImage?: string;
  /**
   * Also install the packageserver (the PackageManifest API), as a CSV the olm operator deploys.
   * @default true
   */
  readonly packageServer?: boolean;
}

/** The objects of an install: CRDs (applied first), then everything else in order. */
export interface OlmInstallManifests {
  readonly crds: readonly CrdManifest[];
  readonly resources: readonly InstallObject[];
}

export const OLM_NAMESPACE = 'olm';
export const OPERATORS_NAMESPACE = 'operators';
export const OLM_OPERATOR = 'olm-operator';
export const CATALOG_OPERATOR = 'catalog-operator';
export const PACKAGE_SERVER = 'packageserver';
const SERVICE_ACCOUNT = 'olm-operator-serviceaccount';
const CLUSTER_ROLE = 'system:controller:operator-lifecycle-manager';

export function defaultOlmImage(version: string): string {
  return `quay.io/operator-framework/olm:v${version}`;
}

/** One of OLM's operator Deployments: health on :8080, metrics on :8081, as OLM's quickstart runs them. */
function operatorDeployment(
  name: string,
  image: string,
  command: readonly string[],
  env: readonly Record<string, unknown>[],
  memory: string,
): InstallObject {
  const health = { httpGet: { path: '/healthz', port: 8080 } };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: OLM_NAMESPACE, labels: { app: name } },
    spec: {
      strategy: { type: 'RollingUpdate' },
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          serviceAccountName: SERVICE_ACCOUNT,
          containers: [
            {
              name,
              command,
              image,
              imagePullPolicy: 'IfNotPresent',
              ports: [
                { containerPort: 8080, protocol: 'TCP' },
                { containerPort: 8081, name: 'metrics', protocol: 'TCP' },
              ],
              livenessProbe: health,
              readinessProbe: health,
              terminationMessagePolicy: 'FallbackToLogsOnError',
              ...(env.length > 0 ? { env } : {}),
              resources: { requests: { cpu: '10m', memory } },
            },
          ],
          nodeSelector: { 'kubernetes.io/os': 'linux' },
        },
      },
    },
  };
}

/** The packageserver CSV: OLM deploys the PackageManifest API server from it and registers its APIService. */
// Long on purpose: one object literal that reads like the CSV YAML it produces.
function packageServerCsv(version: string, image: string): InstallObject {
  const health = { httpGet: { scheme: 'HTTPS', path: '/healthz', port: 5443 } };
  const read = ['get', 'list', 'watch'];
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name: PACKAGE_SERVER, namespace: OLM_NAMESPACE, labels: { 'olm.version': version } },
    spec: {
      displayName: 'Package Server',
      description: "The PackageManifest API: the operator packages the cluster's CatalogSources offer.",
      minKubeVersion: '1.11.0',
      keywords: ['packagemanifests', 'olm', 'packages'],
      provider: { name: 'Operator Framework' },
      maturity: 'alpha',
      version,
      installModes: ['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'].map((type) => ({
        type,
        supported: true,
      })),
      install: {
        strategy: 'deployment',
        spec: {
          clusterPermissions: [
            {
              serviceAccountName: SERVICE_ACCOUNT,
              rules: [
                {
                  apiGroups: ['authorization.k8s.io'],
                  resources: ['subjectaccessreviews'],
                  verbs: ['create', 'get'],
                },
                { apiGroups: [''], resources: ['configmaps'], verbs: read },
                { apiGroups: ['operators.coreos.com'], resources: ['catalogsources'], verbs: read },
                {
                  apiGroups: ['packages.operators.coreos.com'],
                  resources: ['packagemanifests'],
                  verbs: ['get', 'list'],
                },
              ],
            },
          ],
          deployments: [
            {
              name: PACKAGE_SERVER,
              spec: {
                strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } },
                replicas: 1,
                selector: { matchLabels: { app: PACKAGE_SERVER } },
                template: {
                  metadata: { labels: { app: PACKAGE_SERVER } },
                  spec: {
                    serviceAccountName: SERVICE_ACCOUNT,
                    nodeSelector: { 'kubernetes.io/os': 'linux' },
                    containers: [
                      {
                        name: PACKAGE_SERVER,
                        command: [
                          '/bin/package-server',
                          '-v=4',
                          '--secure-port',
                          '5443',
                          '--global-namespace',
                          OLM_NAMESPACE,
                        ],
                        image,
                        imagePullPolicy: 'IfNotPresent',
                        ports: [{ containerPort: 5443, protocol: 'TCP' }],
                        livenessProbe: health,
                        readinessProbe: health,
                        terminationMessagePolicy: 'FallbackToLogsOnError',
                        resources: { requests: { cpu: '10m', memory: '50Mi' } },
                        securityContext: { runAsUser: 1000 },
                        volumeMounts: [{ name: 'tmpfs', mountPath: '/tmp' }],
                      },
                    ],
                    volumes: [{ name: 'tmpfs', emptyDir: {} }],
                  },
                },
              },
            },
          ],
        },
      },
      apiservicedefinitions: {
        owned: [
          {
            group: 'packages.operators.coreos.com',
            version: 'v1',
            kind: 'PackageManifest',
            name: 'packagemanifests',
            displayName: 'PackageManifest',
            description: 'The operator packages of the CatalogSources',
            deploymentName: PACKAGE_SERVER,
            containerPort: 5443,
          },
        ],
      },
    },
  };
}

/**
 * OLM's install, as its release manifests (`crds.yaml`, `olm.yaml`) lay it out: the CRDs; the `olm` and
 * `operators` namespaces; a service account bound to a cluster-wide role; the olm-operator and
 * catalog-operator Deployments; the roles aggregated into admin/edit/view; the `global-operators` and
 * `olm-operators` OperatorGroups; and the packageserver CSV. The default catalog (operatorhub.io) is left
 * out: it needs the internet.
 */
// Long on purpose: one list of the resources in the order OLM's release manifests lay them out, so it can be
// read against `olm.yaml`; the two Deployments and the packageserver CSV come from helpers.
export function olmInstallManifests(options: OlmInstallOptions): OlmInstallManifests {
  const image = options.image ?? defaultOlmImage(options.version);
  const olmOperator = operatorDeployment(
    OLM_OPERATOR,
    image,
    ['/bin/olm', '--namespace', '$(OPERATOR_NAMESPACE)', '--writeStatusName', ''],
    [
      { name: 'OPERATOR_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'OPERATOR_NAME', value: OLM_OPERATOR },
    ],
    '160Mi',
  );
  const catalogOperator = operatorDeployment(
    CATALOG_OPERATOR,
    image,
    [
      '/bin/catalog',
      '--namespace',
      OLM_NAMESPACE,
      '--util-image',
      image,
      ...(options.opmImage ? ['--opmImage', options.opmImage] : []),
    ],
    [],
    '80Mi',
  );
  const resources: InstallObject[] = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: OLM_NAMESPACE } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: OPERATORS_NAMESPACE } },
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: SERVICE_ACCOUNT, namespace: OLM_NAMESPACE },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: CLUSTER_ROLE },
      rules: [
        { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
        { nonResourceURLs: ['*'], verbs: ['*'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'olm-operator-binding-olm' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: CLUSTER_ROLE },
      subjects: [{ kind: 'ServiceAccount', name: SERVICE_ACCOUNT, namespace: OLM_NAMESPACE }],
    },
    olmOperator,
    catalogOperator,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: {
        name: 'aggregate-olm-edit',
        labels: {
          'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
          'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
        },
      },
      rules: [
        {
          apiGroups: ['operators.coreos.com'],
          resources: ['subscriptions'],
          verbs: ['create', 'update', 'patch', 'delete'],
        },
        {
          apiGroups: ['operators.coreos.com'],
          resources: ['clusterserviceversions', 'catalogsources', 'installplans', 'subscriptions'],
          verbs: ['delete'],
        },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: {
        name: 'aggregate-olm-view',
        labels: {
          'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
          'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
          'rbac.authorization.k8s.io/aggregate-to-view': 'true',
        },
      },
      rules: [
        {
          apiGroups: ['operators.coreos.com'],
          resources: [
            'clusterserviceversions',
            'catalogsources',
            'installplans',
            'subscriptions',
            'operatorgroups',
          ],
          verbs: ['get', 'list', 'watch'],
        },
        {
          apiGroups: ['packages.operators.coreos.com'],
          resources: ['packagemanifests', 'packagemanifests/icon'],
          verbs: ['get', 'list', 'watch'],
        },
      ],
    },
    {
      apiVersion: 'operators.coreos.com/v1',
      kind: 'OperatorGroup',
      metadata: { name: 'global-operators', namespace: OPERATORS_NAMESPACE },
      spec: {},
    },
    {
      apiVersion: 'operators.coreos.com/v1',
      kind: 'OperatorGroup',
      metadata: { name: 'olm-operators', namespace: OLM_NAMESPACE },
      spec: { targetNamespaces: [OLM_NAMESPACE] },
    },
    ...(options.packageServer === false ? [] : [packageServerCsv(options.version, image)]),
  ];
  return { crds: olmCrds(), resources };
}
