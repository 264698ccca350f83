import { goJsonMarshal } from '../go-compat/go-json.js';
import {
  type ClusterServiceVersion,
  CSV_API_VERSION,
  CSV_KIND,
  packageNameOf,
  type StrategyDeploymentSpec,
} from '../manifest/cluster-service-version.js';
import { deepCopy, isRecord, type Manifest } from '../manifest/manifest.js';
import { parseVersion } from '../semver/index.js';
import { validateCsv } from '../validation/csv.js';
import { formatValidationError, hasErrors, type ManifestResult } from '../validation/result.js';
import { DEFAULT_INSTALL_MODES, defaultBaseCsv, findBaseCsv } from './base.js';
import { bundleManifests } from './bundle-manifests.js';
import { CsvError } from './errors.js';
import { classifyOperatorObjects } from './operator-objects.js';
import { ownedCrdDescriptions } from './owned-crds.js';
import { type FoldedPermissions, foldPermissions } from './permissions.js';
import { collectRelatedImages, mergeRelatedImages } from './related-images.js';
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
  readonly objects: readonly Manifest[];
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
  readonly manifests: Manifest[];
  /** Inputs that were dropped or adjusted. */
  readonly warnings: string[];
  /** The CSV validator's findings on the result (warnings only: errors throw). */
  readonly validation: ManifestResult;
}

const SKIP_RANGE = 'olm.skipRange';

/** RFC 3339 in UTC with seconds precision, as Go's `time.RFC3339` prints it. */
function rfc3339(value: Date | string): string {
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime()))
    throw new CsvError('OLM_CSV_INPUT_INVALID', `invalid createdAt ${String(value)}`);
  return `${date.toISOString().slice(0, 19)}Z`;
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
  assertStrictSemver(input.version);
  const { csv, packageName } = startingCsv(input);
  const operator = classifyOperatorObjects(
    input.objects,
    input.operatorImage,
    input.extraServiceAccounts ?? [],
  );
  const rbac = foldPermissions(operator.objects, operator.serviceAccounts);
  // Each step sets its fields in place; the order of the steps is the order new keys appear in the output.
  setInstallStrategy(csv, operator.deployments, rbac);
  setCustomResourceDefinitions(csv, operator.crds);
  const webhooks = webhookDefinitions(operator.objects, operator.deployments);
  if (webhooks.length > 0) csv.spec.webhookdefinitions = webhooks;
  const imageWarnings = setRelatedImages(csv, operator.deployments);
  setAnnotations(csv, input, operator.samples);
  setVersionAndUpgradeEdges(csv, input, packageName);
  const { manifests, warnings: manifestWarnings } = bundleManifests(operator, rbac.remaining);
  return {
    csv,
    manifests,
    warnings: [...imageWarnings, ...manifestWarnings],
    validation: validGeneratedCsv(csv),
  };
}

function assertStrictSemver(version: string): void {
  try {
    parseVersion(version);
  } catch (error) {
    throw new CsvError(
      'OLM_CSV_INPUT_INVALID',
      `invalid version ${JSON.stringify(version)}: ${(error as Error).message}`,
    );
  }
}

/** A copy of the base CSV (given, found among the objects, or the default one) with its required fields set. */
function startingCsv(input: GenerateCsvInput): { csv: ClusterServiceVersion; packageName: string } {
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
  return { csv, packageName };
}

/** `spec.install`: the base's strategy (default `deployment`) with every deployment and the folded RBAC. */
function setInstallStrategy(
  csv: ClusterServiceVersion,
  deployments: readonly Manifest[],
  rbac: FoldedPermissions,
): void {
  const install = isRecord(csv.spec.install) ? csv.spec.install : { strategy: '' };
  const strategy =
    typeof install.strategy === 'string' && install.strategy !== '' ? install.strategy : 'deployment';
  csv.spec.install = {
    ...install,
    strategy,
    spec: {
      deployments: deployments.map(strategyDeployment),
      ...(rbac.permissions.length > 0 ? { permissions: rbac.permissions } : {}),
      ...(rbac.clusterPermissions.length > 0 ? { clusterPermissions: rbac.clusterPermissions } : {}),
    },
  };
}

function strategyDeployment(deployment: Manifest): StrategyDeploymentSpec {
  const entry: StrategyDeploymentSpec = {
    name: deployment.metadata.name ?? '',
    spec: (isRecord(deployment.spec) ? deployment.spec : {}) as Record<string, unknown>,
  };
  const labels = deployment.metadata.labels;
  if (labels !== undefined && Object.keys(labels).length > 0) entry.label = { ...labels };
  return entry;
}

/** `spec.customresourcedefinitions`: owned entries from the CRDs (merged with the base's), required as in the base. */
function setCustomResourceDefinitions(csv: ClusterServiceVersion, crds: readonly Manifest[]): void {
  const baseCrds = isRecord(csv.spec.customresourcedefinitions) ? csv.spec.customresourcedefinitions : {};
  const owned = ownedCrdDescriptions(crds, Array.isArray(baseCrds.owned) ? baseCrds.owned : []);
  const required = Array.isArray(baseCrds.required) ? baseCrds.required : [];
  if (owned.length === 0 && required.length === 0) {
    delete csv.spec.customresourcedefinitions;
    return;
  }
  csv.spec.customresourcedefinitions = {
    ...(owned.length > 0 ? { owned } : {}),
    ...(required.length > 0 ? { required } : {}),
  };
}

/** `spec.relatedImages`: the base's plus those the deployments reference; returns what was dropped or merged. */
function setRelatedImages(csv: ClusterServiceVersion, deployments: readonly Manifest[]): string[] {
  const collected = collectRelatedImages(deployments);
  const merged = mergeRelatedImages(
    Array.isArray(csv.spec.relatedImages) ? csv.spec.relatedImages : [],
    collected.images,
  );
  if (merged.images.length > 0) csv.spec.relatedImages = merged.images;
  return [...collected.warnings, ...merged.warnings];
}

function setAnnotations(
  csv: ClusterServiceVersion,
  input: GenerateCsvInput,
  samples: readonly Manifest[],
): void {
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
}

/** Name and version, the upgrade edges and minimum Kubernetes version given, and install modes when none are set. */
function setVersionAndUpgradeEdges(
  csv: ClusterServiceVersion,
  input: GenerateCsvInput,
  packageName: string,
): void {
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
}

/** The CSV validator's findings; the SDK refuses to write a CSV with errors, and so do we. */
function validGeneratedCsv(csv: ClusterServiceVersion): ManifestResult {
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
  return validation;
}
