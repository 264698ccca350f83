/**
 * The `operators.coreos.com/v1alpha1` ClusterServiceVersion (operator-framework/api
 * `clusterserviceversion_types.go`).
 *
 * Every interface keeps an index signature so fields this code does not model survive a round trip. The
 * base Kubernetes types (object, metadata, group/version/kind, RBAC rule) are the runtime's.
 */

import type { GroupVersionKind } from '@opkit/controller-runtime/client';
import type { PolicyRule } from '@opkit/controller-runtime/rbac';
import type { JsonValue, Manifest } from './manifest.js';

/** One install mode of a CSV. */
export interface InstallMode {
  type: InstallModeType;
  supported: boolean;
}

/** The four install mode types OLM knows. */
export type InstallModeType = 'OwnNamespace' | 'SingleNamespace' | 'MultiNamespace' | 'AllNamespaces';

/** `spec.install.spec.deployments[]`. */
export interface StrategyDeploymentSpec {
  name: string;
  spec: Record<string, unknown>;
  label?: Record<string, string>;
  [key: string]: unknown;
}

/** `spec.install.spec.permissions[]` and `clusterPermissions[]`. */
export interface StrategyDeploymentPermissions {
  serviceAccountName: string;
  rules: PolicyRule[];
  [key: string]: unknown;
}

/** `spec.install`. */
export interface NamedInstallStrategy {
  strategy: string;
  spec?: {
    deployments?: StrategyDeploymentSpec[];
    permissions?: StrategyDeploymentPermissions[];
    clusterPermissions?: StrategyDeploymentPermissions[];
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** A spec, status or action descriptor of an owned or required API. */
export interface Descriptor {
  path: string;
  displayName?: string;
  description?: string;
  'x-descriptors'?: string[];
  value?: JsonValue;
  [key: string]: unknown;
}

/** `{name, kind, version}` of a resource an API creates. */
export interface ApiResourceReference {
  name: string;
  kind: string;
  version: string;
}

/** `spec.customresourcedefinitions.owned[]` / `required[]`. */
export interface CrdDescription {
  name: string;
  version: string;
  kind: string;
  displayName?: string;
  description?: string;
  resources?: ApiResourceReference[];
  statusDescriptors?: Descriptor[];
  specDescriptors?: Descriptor[];
  actionDescriptors?: Descriptor[];
  [key: string]: unknown;
}

/** `spec.apiservicedefinitions.owned[]` / `required[]`. */
export interface ApiServiceDescription {
  name: string;
  group: string;
  version: string;
  kind: string;
  [key: string]: unknown;
}

/** `spec.webhookdefinitions[]`. */
export interface WebhookDescription {
  generateName: string;
  type: 'ValidatingAdmissionWebhook' | 'MutatingAdmissionWebhook' | 'ConversionWebhook';
  deploymentName?: string;
  containerPort?: number;
  targetPort?: number | string;
  sideEffects: string | null;
  admissionReviewVersions: string[];
  [key: string]: unknown;
}

/** `{name, url}` of a link or the provider; `{name, email}` of a maintainer. */
export interface AppLink {
  name?: string;
  url?: string;
}

/** A maintainer of the operator. */
export interface Maintainer {
  name?: string;
  email?: string;
}

/** One icon. */
export interface Icon {
  base64data: string;
  mediatype: string;
}

/** An image the operator uses. */
export interface RelatedImage {
  name: string;
  image: string;
}

/** `spec` of a ClusterServiceVersion. */
export interface ClusterServiceVersionSpec {
  install: NamedInstallStrategy;
  version?: string;
  release?: string;
  maturity?: string;
  customresourcedefinitions?: { owned?: CrdDescription[]; required?: CrdDescription[] };
  apiservicedefinitions?: { owned?: ApiServiceDescription[]; required?: ApiServiceDescription[] };
  webhookdefinitions?: WebhookDescription[];
  nativeAPIs?: GroupVersionKind[];
  minKubeVersion?: string;
  displayName: string;
  description?: string;
  keywords?: string[];
  maintainers?: Maintainer[];
  provider?: AppLink;
  links?: AppLink[];
  icon?: Icon[];
  installModes?: InstallMode[];
  replaces?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  selector?: Record<string, unknown>;
  cleanup?: { enabled: boolean };
  skips?: string[];
  relatedImages?: RelatedImage[];
  [key: string]: unknown;
}

/** An `operators.coreos.com/v1alpha1` ClusterServiceVersion. */
export interface ClusterServiceVersion extends Manifest {
  apiVersion: string;
  kind: string;
  spec: ClusterServiceVersionSpec;
}

/** API group and version of the ClusterServiceVersion kind. */
export const CSV_API_VERSION = 'operators.coreos.com/v1alpha1';

/** Kind of a ClusterServiceVersion. */
export const CSV_KIND = 'ClusterServiceVersion';

/** The package name a CSV name implies: `memcached-operator.v0.0.1` → `memcached-operator`. */
export function packageNameOf(csvName: string): string | undefined {
  const i = csvName.indexOf('.v');
  return i > 0 ? csvName.slice(0, i) : undefined;
}
