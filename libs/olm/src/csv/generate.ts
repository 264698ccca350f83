import { goJsonMarshal } from '../bundle/go-json.js';
import { isSupportedKind } from '../bundle/supported-kinds.js';
import { parseVersion } from '../semver/index.js';
import { validateCsv } from '../validation/csv.js';
import { formatValidationError, hasErrors, type ManifestResult } from '../validation/result.js';
import { DEFAULT_INSTALL_MODES, defaultBaseCsv, findBaseCsv, packageNameOf } from './base.js';
import { CsvError } from './errors.js';
import { ownedCrdDescriptions } from './owned-crds.js';
import { foldPermissions } from './permissions.js';
import { collectRelatedImages, mergeRelatedImages } from './related-images.js';
import {
  type ClusterServiceVersion,
  CRD_KIND,
  CSV_API_VERSION,
  CSV_KIND,
  deepCopy,
  groupOf,
  isRecord,
  type KubeObject,
  type StrategyDeploymentSpec,
  versionOf,
} from './types.js';
import { webhookDefinitions } from './webhooks.js';

/** Input of {@link generateCsv}. */
export interface GenerateCsvInput {
  /**
   * The hand-written base CSV (`config/manifests/bases/<pkg>.clusterserviceversion.yaml`). When absent, the
   * CSV among `objects` named `<packageName>.*` is used, else the SDK's default base.
   */
  readonly base?: ClusterServiceVersion;
  /** Package name; derived from the base's name (`<pkg>.vX.Y.Z`) when absent. */
  readonly packageName?: string;
  /** The rendered operator objects (`kubectl kustomize config/manifests`): CRDs, RBAC, Deployment(s), samples, … */
  readonly objects: readonly KubeObject[];
  /** The bundle version (strict semver); sets `spec.version` and `metadata.name` `<pkg>.v<version>`. */
  readonly version: string;
  /** `spec.replaces`; the base's value is kept when undefined, removed when null. */
  readonly replaces?: string | null;
  /** `spec.skips`; the base's value is kept when undefined, removed when null. */
  readonly skips?: readonly string[] | null;
  /** Annotation `olm.skipRange`; the base's value is kept when undefined, removed when null. */
  readonly skipRange?: string | null;
  /** `spec.minKubeVersion`; the base's value is kept when undefined. */
  readonly minKubeVersion?: string;
  /**
   * Image of the operator: replaces the image of the manager container (named `manager`, else the first
   * container of the first deployment) and the `containerImage` annotation.
   */
  readonly operatorImage?: string;
  /** Service accounts besides the deployments' whose RBAC is folded into the CSV (`--extra-service-accounts`). */
  readonly extraServiceAccounts?: readonly string[];
  /** Annotation `createdAt` (RFC 3339, seconds); left as in the base when undefined, for reproducible output. */
  readonly createdAt?: Date | string;
  /** Annotation `operators.operatorframework.io/builder`, e.g. `opkit-v0.1.0`. */
  readonly builder?: string;
  /** Annotation `operators.operatorframework.io/project_layout`. */
  readonly projectLayout?: string;
}

/** What {@link generateCsv} produces. */
export interface GeneratedCsv {
  readonly csv: ClusterServiceVersion;
  /**
   * The other objects the bundle ships (CRDs, Services, RBAC not folded into the CSV, other supported kinds),
   * without namespaces.
   */
  readonly manifests: KubeObject[];
  /** Inputs that were dropped or adjusted. */
  readonly warnings: string[];
  /** The CSV validator's findings on the result (warnings only: errors throw). */
  readonly validation: ManifestResult;
}

const WATCH_NAMESPACE = 'WATCH_NAMESPACE';
const TARGET_NAMESPACES_REF = "metadata.annotations['olm.targetNamespaces']";
const SKIP_RANGE = 'olm.skipRange';

function podSpecOf(deployment: KubeObject): Record<string, unknown> {
  const spec = isRecord(deployment.spec) ? deployment.spec : {};
  const template = isRecord(spec.template) ? spec.template : {};
  return isRecord(template.spec) ? template.spec : {};
}

function containersOf(deployment: KubeObject): Record<string, unknown>[] {
  const list = podSpecOf(deployment).containers;
  return (Array.isArray(list) ? list : []).filter(isRecord);
}

/** RFC 3339 in UTC with seconds precision, as Go's `time.RFC3339` prints it. */
function rfc3339(value: Date | string): string {
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime()))
    throw new CsvError('OLM_CSV_INPUT_INVALID', `invalid createdAt ${String(value)}`);
  return `${date.toISOString().slice(0, 19)}Z`;
}

function prepareDeployment(dep: KubeObject, operatorImage: string | undefined, first: boolean): KubeObject {
  const copy = deepCopy(dep);
  const containers = containersOf(copy);
  if (operatorImage !== undefined) {
    const manager = containers.find((c) => c.name === 'manager') ?? (first ? containers[0] : undefined);
    if (manager !== undefined) manager.image = operatorImage;
  }
  for (const c of containers) {
    if (!Array.isArray(c.env)) continue;
    c.env = c.env.map((env: unknown) =>
      isRecord(env) && env.name === WATCH_NAMESPACE
        ? { name: WATCH_NAMESPACE, valueFrom: { fieldRef: { fieldPath: TARGET_NAMESPACES_REF } } }
        : env,
    );
  }
  return copy;
}

/**
 * Generates a ClusterServiceVersion the way `operator-sdk generate bundle` does, from a base CSV and the
 * rendered operator objects:
 * - `spec.install`: strategy `deployment` with every Deployment (`name`, `spec`, `label`), and
 *   `permissions` / `clusterPermissions` folded from the Roles/ClusterRoles bound to the deployments'
 *   service accounts (`WATCH_NAMESPACE` is rewired to `olm.targetNamespaces`);
 * - `spec.customresourcedefinitions.owned`: one entry per CRD version, keeping the base's entries;
 * - `alm-examples`: the samples whose GVK a CRD serves (JSON, 2-space indentation);
 * - `spec.webhookdefinitions` from webhook configurations (the base's are kept when there are none);
 * - `spec.relatedImages`: the base's, plus `RELATED_IMAGE_*` variables and the operator image;
 * - `metadata.name`, `spec.version`, and `spec.replaces`, `spec.skips`, `olm.skipRange`, `spec.minKubeVersion`
 *   when given.
 * Every other field of the base — display name, description, icon, keywords, maintainers, links, provider,
 * maturity, install modes, labels, annotations, required CRDs, descriptors — is kept as written (install modes
 * default to AllNamespaces only, as in the SDK's default base).
 *
 * @throws {CsvError} `OLM_CSV_INPUT_INVALID` for bad inputs, `OLM_CSV_INVALID` when the result fails the CSV
 *   validator (as the SDK refuses to write an invalid CSV).
 */
export function generateCsv(input: GenerateCsvInput): GeneratedCsv {
  try {
    parseVersion(input.version);
  } catch (error) {
    throw new CsvError(
      'OLM_CSV_INPUT_INVALID',
      `invalid version ${JSON.stringify(input.version)}: ${(error as Error).message}`,
    );
  }
  const foundBase = input.base ?? findBaseCsv(input.objects, input.packageName);
  const packageName =
    input.packageName ?? (foundBase !== undefined ? packageNameOf(foundBase.metadata.name ?? '') : undefined);
  if (packageName === undefined || packageName === '') {
    throw new CsvError(
      'OLM_CSV_INPUT_INVALID',
      'no package name: pass packageName or a base CSV named <package>.v<version>',
    );
  }
  const csv = deepCopy(foundBase ?? defaultBaseCsv(packageName));
  csv.apiVersion = csv.apiVersion || CSV_API_VERSION;
  csv.kind = CSV_KIND;
  if (!isRecord(csv.metadata)) csv.metadata = {};
  if (!isRecord(csv.spec)) csv.spec = { displayName: '', install: { strategy: 'deployment' } };
  const warnings: string[] = [];

  const objects = input.objects.filter((o) => o.kind !== CSV_KIND);
  const deployments = objects
    .filter((o) => o.kind === 'Deployment' && groupOf(o.apiVersion) === 'apps')
    .map((d, i) => prepareDeployment(d, input.operatorImage, i === 0));
  const crds = objects.filter((o) => o.kind === CRD_KIND);
  const served = new Set<string>();
  for (const crd of crds) {
    const spec = isRecord(crd.spec) ? crd.spec : {};
    const kind = isRecord(spec.names) ? String(spec.names.kind ?? '') : '';
    const versions = Array.isArray(spec.versions)
      ? spec.versions.filter(isRecord).map((v) => String(v.name ?? ''))
      : [];
    if (typeof spec.version === 'string') versions.push(spec.version);
    for (const v of versions) served.add(`${String(spec.group ?? '')}/${v}/${kind}`);
  }
  const isSample = (o: KubeObject) =>
    served.has(`${groupOf(o.apiVersion)}/${versionOf(o.apiVersion)}/${o.kind}`);
  const samples = objects.filter(isSample);

  const serviceAccounts = new Set([
    ...deployments.map((d) => {
      const name = podSpecOf(d).serviceAccountName;
      return typeof name === 'string' && name !== '' ? name : 'default';
    }),
    ...(input.extraServiceAccounts ?? []),
  ]);
  const rbac = foldPermissions(objects, serviceAccounts);

  // spec.install
  const install = isRecord(csv.spec.install) ? csv.spec.install : { strategy: '' };
  const strategy =
    typeof install.strategy === 'string' && install.strategy !== '' ? install.strategy : 'deployment';
  const deploymentSpecs: StrategyDeploymentSpec[] = deployments.map((d) => {
    const entry: StrategyDeploymentSpec = {
      name: d.metadata.name ?? '',
      spec: (isRecord(d.spec) ? d.spec : {}) as Record<string, unknown>,
    };
    if (d.metadata.labels !== undefined && Object.keys(d.metadata.labels).length > 0)
      entry.label = { ...d.metadata.labels };
    return entry;
  });
  csv.spec.install = {
    ...install,
    strategy,
    spec: {
      deployments: deploymentSpecs,
      ...(rbac.permissions.length > 0 ? { permissions: rbac.permissions } : {}),
      ...(rbac.clusterPermissions.length > 0 ? { clusterPermissions: rbac.clusterPermissions } : {}),
    },
  };

  // spec.customresourcedefinitions
  const baseCrds = isRecord(csv.spec.customresourcedefinitions) ? csv.spec.customresourcedefinitions : {};
  const owned = ownedCrdDescriptions(crds, Array.isArray(baseCrds.owned) ? baseCrds.owned : []);
  const required = Array.isArray(baseCrds.required) ? baseCrds.required : [];
  if (owned.length > 0 || required.length > 0) {
    csv.spec.customresourcedefinitions = {
      ...(owned.length > 0 ? { owned } : {}),
      ...(required.length > 0 ? { required } : {}),
    };
  } else {
    delete csv.spec.customresourcedefinitions;
  }

  // webhooks
  const webhooks = webhookDefinitions(objects, deployments);
  if (webhooks.length > 0) csv.spec.webhookdefinitions = webhooks;

  // related images
  const collected = collectRelatedImages(deployments);
  const merged = mergeRelatedImages(
    Array.isArray(csv.spec.relatedImages) ? csv.spec.relatedImages : [],
    collected.images,
  );
  warnings.push(...collected.warnings, ...merged.warnings);
  if (merged.images.length > 0) csv.spec.relatedImages = merged.images;

  // metadata, version and upgrade edges
  const annotations = { ...(csv.metadata.annotations ?? {}) };
  annotations['alm-examples'] = goJsonMarshal(samples, { indent: '  ' });
  if (input.skipRange === null) delete annotations[SKIP_RANGE];
  else if (input.skipRange !== undefined) annotations[SKIP_RANGE] = input.skipRange;
  if (input.createdAt !== undefined) annotations.createdAt = rfc3339(input.createdAt);
  if (input.builder !== undefined) annotations['operators.operatorframework.io/builder'] = input.builder;
  if (input.projectLayout !== undefined)
    annotations['operators.operatorframework.io/project_layout'] = input.projectLayout;
  if (input.operatorImage !== undefined) annotations.containerImage = input.operatorImage;
  csv.metadata.annotations = annotations;
  csv.metadata.name = `${packageName}.v${input.version}`;
  csv.spec.version = input.version;
  if (input.replaces === null) delete csv.spec.replaces;
  else if (input.replaces !== undefined) csv.spec.replaces = input.replaces;
  if (input.skips === null) delete csv.spec.skips;
  else if (input.skips !== undefined) csv.spec.skips = [...input.skips];
  if (input.minKubeVersion !== undefined) csv.spec.minKubeVersion = input.minKubeVersion;
  if (!Array.isArray(csv.spec.installModes) || csv.spec.installModes.length === 0) {
    csv.spec.installModes = DEFAULT_INSTALL_MODES.map((m) => ({ ...m }));
  }

  // the other bundle manifests
  const folded = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);
  const manifests: KubeObject[] = [
    ...crds.map((c) => deepCopy(c)),
    ...rbac.remaining.map((o) => deepCopy(o)),
  ];
  for (const obj of objects) {
    if (obj.kind === CRD_KIND || folded.has(obj.kind) || isSample(obj)) continue;
    if (obj.kind === 'Deployment' || obj.kind === 'Namespace') continue;
    if (obj.kind === 'ValidatingWebhookConfiguration' || obj.kind === 'MutatingWebhookConfiguration')
      continue;
    if (obj.kind === 'ServiceAccount' && serviceAccounts.has(obj.metadata.name ?? '')) continue;
    if (!isSupportedKind(obj.kind)) {
      warnings.push(
        `${obj.kind} ${JSON.stringify(obj.metadata.name ?? '')} dropped: not a supported kind for a registry+v1 bundle`,
      );
      continue;
    }
    manifests.push(deepCopy(obj));
  }
  for (const m of manifests) delete m.metadata.namespace;

  const validation = validateCsv(csv);
  if (hasErrors(validation)) {
    throw new CsvError(
      'OLM_CSV_INVALID',
      `invalid generated ClusterServiceVersion:\n${validation.errors
        .filter((e) => e.level === 'Error')
        .map((e) => `  ${formatValidationError(e)}`)
        .join('\n')}`,
      [validation],
    );
  }
  return { csv, manifests, warnings, validation };
}
