import { goQuoteSlice, sortInByteOrder } from '../go-compat/go-format.js';
import { isRecord, type Manifest } from '../manifest/manifest.js';
import {
  compareVersions,
  parseVersion,
  tryParseVersionTolerant,
  type Version,
  ZERO_VERSION,
} from '../semver/index.js';
import { type OptionalValues, type ValidationBundle, v1beta1Crds } from './bundle-model.js';
import {
  errFailedValidation,
  errInvalidBundle,
  type ManifestResult,
  warnFailedValidation,
} from './result.js';

/** Optional value naming the Kubernetes version the bundle targets. */
export const K8S_VERSION_KEY = 'k8s-version';

/** Kubernetes versions whose removed APIs are checked. */
const CHECKED_VERSIONS = ['1.22.0', '1.25.0', '1.26.0'] as const;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const rec = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});

type Found = Map<string, string[]>;

const apiVersionOf = (obj: Manifest): string => str(obj.apiVersion);

function add(found: Found, kind: string, name: string): void {
  const list = found.get(kind) ?? [];
  list.push(name);
  found.set(kind, list);
}

const REMOVED_1_22: Record<string, readonly string[]> = {
  'scheduling.k8s.io/v1beta1': ['PriorityClass'],
  'rbac.authorization.k8s.io/v1beta1': ['Role', 'ClusterRoleBinding', 'RoleBinding', 'ClusterRole'],
  'apiregistration.k8s.io/v1beta1': ['APIService'],
  'authentication.k8s.io/v1beta1': ['TokenReview'],
  'authorization.k8s.io/v1beta1': [
    'LocalSubjectAccessReview',
    'SelfSubjectAccessReview',
    'SubjectAccessReview',
  ],
  'admissionregistration.k8s.io/v1beta1': ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'],
  'coordination.k8s.io/v1beta1': ['Lease'],
  'extensions/v1beta1': ['Ingress'],
  'networking.k8s.io/v1beta1': ['Ingress', 'IngressClass'],
  'storage.k8s.io/v1beta1': ['CSIDriver', 'CSINode', 'StorageClass', 'VolumeAttachment'],
  'certificates.k8s.io/v1beta1': ['CertificateSigningRequest'],
};

const REMOVED_1_25 = new Set([
  'batch/v1beta1/CronJob',
  'discovery.k8s.io/v1beta1/EndpointSlice',
  'events.k8s.io/v1beta1/Event',
  'autoscaling/v2beta1/HorizontalPodAutoscaler',
  'policy/v1beta1/PodDisruptionBudget',
  'policy/v1beta1/PodSecurityPolicy',
  'node.k8s.io/v1beta1/RuntimeClass',
]);

function removedOn122(bundle: ValidationBundle): Found {
  const found: Found = new Map();
  const crds = v1beta1Crds(bundle);
  if (crds.length > 0)
    found.set(
      'CRD',
      crds.map((c) => str(c.metadata.name)),
    );
  for (const obj of bundle.objects) {
    if (REMOVED_1_22[apiVersionOf(obj)]?.includes(obj.kind)) add(found, obj.kind, str(obj.metadata.name));
  }
  return found;
}

function removedOn125(bundle: ValidationBundle): [Found, Found] {
  const found: Found = new Map();
  const warn: Found = new Map();
  const addIfDeprecated = (apiVersion: string, kind: string, name: string) => {
    const key = apiVersion.includes('/') ? `${apiVersion}/${kind}` : `/${apiVersion}/${kind}`;
    if (REMOVED_1_25.has(key)) add(found, kind, name);
  };
  for (const obj of bundle.objects) {
    if (apiVersionOf(obj) !== 'operators.coreos.com/v1alpha1') {
      addIfDeprecated(apiVersionOf(obj), obj.kind, str(obj.metadata.name));
      continue;
    }
    if (obj.kind !== 'ClusterServiceVersion') continue;
    const spec = rec(obj.spec);
    const inCrds = new Set<string>();
    const crdCheck = (field: string, descriptions: unknown[]) => {
      descriptions.forEach((desc, i) => {
        arr(rec(desc).resources).forEach((res, j) => {
          const kind = str(rec(res).kind);
          inCrds.add(`${kind.toLowerCase()}s`);
          addIfDeprecated(
            str(rec(res).version),
            kind,
            `ClusterServiceVersion.Spec.CustomResourceDefinitions.${field}[${i}].Resource[${j}]`,
          );
        });
      });
    };
    crdCheck('Owned', arr(rec(spec.customresourcedefinitions).owned));
    crdCheck('Required', arr(rec(spec.customresourcedefinitions).required));
    const permCheck = (field: string, perms: unknown[]) => {
      perms.forEach((perm, i) => {
        arr(rec(perm).rules).forEach((rule, j) => {
          for (const group of arr(rec(rule).apiGroups).map(str)) {
            for (const resource of arr(rec(rule).resources).map(str)) {
              if (inCrds.has(resource)) continue;
              if (group === 'policy' && resource === 'podsecuritypolicies') {
                add(
                  warn,
                  resource,
                  `ClusterServiceVersion.Spec.InstallStrategy.StrategySpec.${field}[${i}].Rules[${j}]`,
                );
              }
            }
          }
        });
      });
    };
    const installSpec = rec(rec(spec.install).spec);
    permCheck('ClusterPermissions', arr(installSpec.clusterPermissions));
    permCheck('Permissions', arr(installSpec.permissions));
  }
  return [found, warn];
}

function removedOn126(bundle: ValidationBundle): Found {
  const found: Found = new Map();
  for (const obj of bundle.objects) {
    if (apiVersionOf(obj) === 'autoscaling/v2beta2' && obj.kind === 'HorizontalPodAutoscaler') {
      add(found, obj.kind, str(obj.metadata.name));
    }
  }
  return found;
}

/**
 * Upstream `generateMessageWithDeprecatedAPIs`: `Kind: (["a" "b"])`, kinds sorted. Upstream never advances
 * its counter, so with more than one kind every entry ends in a comma; that is reproduced.
 */
function apisMessage(found: Found): string {
  const kinds = sortInByteOrder([...found.keys()]);
  return kinds
    .map((kind) => `${kind}: (${goQuoteSlice(found.get(kind)!, true)})${found.size === 1 ? '' : ','}`)
    .join('');
}

function deprecateMessage(version: Version, apis: string): string {
  const { major, minor } = version;
  return `this bundle is using APIs which were deprecated and removed in v${major}.${minor}. More info: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v${major}-${minor}. Migrate the API(s) for ${apis}`;
}

/** Upstream `validateDeprecatedAPIS`: error and warning messages for removed APIs. */
export function deprecatedApiFindings(
  bundle: ValidationBundle,
  k8sVersion: string,
): { errors: string[]; warnings: string[] } {
  const errors: string[] = [];
  const warnings: string[] = [];
  const provided = k8sVersion.length > 0;
  const providedVersion = tryParseVersionTolerant(k8sVersion) ?? ZERO_VERSION;
  if (provided && tryParseVersionTolerant(k8sVersion) === undefined) {
    errors.push(`invalid value informed via the k8s key option : ${k8sVersion}`);
  }
  const minKube = str(bundle.csv?.spec.minKubeVersion);
  let minKubeVersion = ZERO_VERSION;
  if (minKube.length > 0) {
    const parsed = tryParseVersionTolerant(minKube);
    if (parsed === undefined) {
      errors.push(
        `unable to use csv.Spec.MinKubeVersion to verify the CRD/Webhook apis because it has an invalid value: ${minKube}`,
      );
    } else {
      minKubeVersion = parsed;
    }
  }
  for (const v of CHECKED_VERSIONS) {
    const version = parseVersion(v);
    let found: Found;
    let warnFound: Found = new Map();
    if (v === '1.22.0') found = removedOn122(bundle);
    else if (v === '1.25.0') [found, warnFound] = removedOn125(bundle);
    else found = removedOn126(bundle);
    if (found.size > 0) {
      const message = deprecateMessage(version, apisMessage(found));
      if (compareVersions(providedVersion, version) >= 0 || compareVersions(minKubeVersion, version) >= 0)
        errors.push(message);
      else warnings.push(message);
    }
    if (warnFound.size > 0) warnings.push(deprecateMessage(version, apisMessage(warnFound)));
  }
  return { errors, warnings };
}

/**
 * The `alpha-deprecated-apis` validator: removed Kubernetes APIs, as Errors when `k8s-version` or the CSV's
 * `minKubeVersion` is at least the removal version, else as Warnings. Result named after the bundle.
 */
export function validateDeprecatedApis(
  bundle: ValidationBundle,
  optionalValues: OptionalValues = {},
): ManifestResult {
  if (bundle.csv === undefined)
    return { name: bundle.name, errors: [errInvalidBundle('Bundle csv is nil', bundle.name)] };
  const csvName = str(bundle.csv.metadata.name);
  const { errors, warnings } = deprecatedApiFindings(bundle, optionalValues[K8S_VERSION_KEY] ?? '');
  return {
    name: bundle.name,
    errors: [
      ...errors.map((e) => errFailedValidation(e, csvName)),
      ...warnings.map((w) => warnFailedValidation(w, csvName)),
    ],
  };
}
