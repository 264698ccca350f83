// The OLM objects `opkit run bundle` creates, their names and the mark by which `opkit cleanup` knows them.
import type { KubeObject, ObjectMeta } from '@opkit/controller-runtime';
import { splitTrailingTag } from '@opkit/oci/reference-grammar';
import type { OperatorGroupTarget } from '@opkit/olm';
import { CliError } from '../cli-error.js';
import type { SecurityContextConfig } from '../publish.js';

/** Labels every object `run bundle` creates; the value is the package. */
export const RUN_BUNDLE_LABEL = 'opkit.dev/run-bundle';
/**
 * Names the run that created an object: `{"package":…,"namespace":…,"run":…}`. A label alone is easily
 * copied along with a manifest; `cleanup` deletes only what carries both, naming its package and namespace.
 */
export const RUN_BUNDLE_RUN_ANNOTATION = 'opkit.dev/run-bundle-run';
export const FIELD_MANAGER = 'opkit';
export const OLM_V1ALPHA1 = 'operators.coreos.com/v1alpha1';
export const OLM_V1 = 'operators.coreos.com/v1';

/** Names of the objects for a package: one installation per package and namespace. */
export function objectNames(packageName: string): { catalogSource: string; subscription: string } {
  return { catalogSource: `${packageName}-catalog`, subscription: packageName };
}
/** The OperatorGroup `run bundle` creates when the namespace has none (a namespace holds at most one). */
export const OPERATOR_GROUP_NAME = 'opkit-run-bundle';

export interface OlmObject extends KubeObject {
  apiVersion: string;
  kind: string;
  /** The fields of metadata used here, name always set. */
  metadata: Pick<ObjectMeta, 'namespace' | 'labels' | 'annotations' | 'uid' | 'ownerReferences'> & {
    name: string;
  };
}

export interface OperatorGroup extends OlmObject {
  spec?: { targetNamespaces?: string[]; selector?: unknown; serviceAccountName?: string };
}

export interface Subscription extends OlmObject {
  spec: {
    channel: string;
    name: string;
    source: string;
    sourceNamespace: string;
    installPlanApproval: 'Manual' | 'Automatic';
    startingCSV?: string;
    config?: { env?: { name: string; value: string }[] };
  };
  status?: {
    state?: string;
    currentCSV?: string;
    installedCSV?: string;
    installPlanRef?: { name: string };
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

export interface InstallPlan extends OlmObject {
  spec: { approved: boolean; clusterServiceVersionNames: string[] };
  status?: {
    phase?: string;
    message?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    bundleLookups?: {
      path: string;
      conditions?: { type: string; status: string; reason?: string; message?: string }[];
    }[];
  };
}

export interface ClusterServiceVersion extends OlmObject {
  spec: { customresourcedefinitions?: { owned?: { name: string }[] } };
  status?: { phase?: string; reason?: string; message?: string };
}

export interface CatalogSourceObject extends OlmObject {
  spec: {
    image?: string;
    sourceType?: string;
    grpcPodConfig?: { securityContextConfig?: SecurityContextConfig };
  };
  status?: { connectionState?: { lastObservedState?: string } };
}

/** One run of `run bundle`: the package it installs, where, and an id of its own. */
export interface RunMark {
  readonly package: string;
  readonly namespace: string;
  readonly run: string;
}

/** The label and annotation of every object a run creates. */
export function runMetadata(mark: RunMark): {
  labels: Record<string, string>;
  annotations: Record<string, string>;
} {
  return {
    labels: { [RUN_BUNDLE_LABEL]: mark.package },
    annotations: {
      [RUN_BUNDLE_RUN_ANNOTATION]: JSON.stringify({
        package: mark.package,
        namespace: mark.namespace,
        run: mark.run,
      }),
    },
  };
}

/**
 * The run that created the object, when its label and annotation agree and name the namespace it is in;
 * `undefined` for anything else, whatever else it carries.
 */
export function runMarkOf(object: Pick<OlmObject, 'metadata'>): RunMark | undefined {
  const label = object.metadata.labels?.[RUN_BUNDLE_LABEL];
  const annotation = object.metadata.annotations?.[RUN_BUNDLE_RUN_ANNOTATION];
  if (label === undefined || annotation === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(annotation);
  } catch {
    return undefined;
  }
  const mark = value as Partial<Record<keyof RunMark, unknown>> | null;
  if (
    typeof mark?.package !== 'string' ||
    typeof mark.namespace !== 'string' ||
    typeof mark.run !== 'string' ||
    mark.run === '' ||
    mark.package !== label ||
    mark.namespace !== object.metadata.namespace
  ) {
    return undefined;
  }
  return { package: mark.package, namespace: mark.namespace, run: mark.run };
}

/** `metadata.creationTimestamp` (RFC 3339 on the wire); `undefined` when absent or not a time. */
export function createdAt(object: Pick<OlmObject, 'metadata'>): Date | undefined {
  const value: unknown = (object.metadata as { creationTimestamp?: unknown }).creationTimestamp;
  if (typeof value !== 'string') return undefined;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

/** Whether a run of `run bundle` for the package in the object's namespace created the object. */
export function createdForPackage(object: Pick<OlmObject, 'metadata'>, packageName: string): boolean {
  return runMarkOf(object)?.package === packageName;
}

/** An OperatorGroup for the chosen install mode (no targetNamespaces: all namespaces). */
export function operatorGroupManifest(mark: RunMark, target: OperatorGroupTarget): OperatorGroup {
  return {
    apiVersion: OLM_V1,
    kind: 'OperatorGroup',
    metadata: { name: OPERATOR_GROUP_NAME, namespace: mark.namespace, ...runMetadata(mark) },
    spec: target.targetNamespaces.length > 0 ? { targetNamespaces: [...target.targetNamespaces] } : {},
  };
}

/**
 * A Subscription to the package's channel in its own catalog, starting at the bundle's CSV, with manual
 * approval: `run bundle` approves exactly the plan that installs the bundle it was given, as operator-sdk does.
 */
export function subscriptionManifest(options: {
  readonly mark: RunMark;
  readonly channel: string;
  readonly startingCSV: string;
  readonly env: readonly { name: string; value: string }[];
}): Subscription {
  const { mark } = options;
  const names = objectNames(mark.package);
  return {
    apiVersion: OLM_V1ALPHA1,
    kind: 'Subscription',
    metadata: { name: names.subscription, namespace: mark.namespace, ...runMetadata(mark) },
    spec: {
      channel: options.channel,
      name: mark.package,
      source: names.catalogSource,
      sourceNamespace: mark.namespace,
      installPlanApproval: 'Manual',
      startingCSV: options.startingCSV,
      ...(options.env.length > 0 ? { config: { env: options.env.map((e) => ({ ...e })) } } : {}),
    },
  };
}

/**
 * Why `run bundle` must not take over an object it found where it would create its own, or `undefined` when a
 * run for the same package created it (a run that failed half-way is taken up again).
 */
export function adoptionConflict(existing: OlmObject | undefined, packageName: string): string | undefined {
  if (existing === undefined || createdForPackage(existing, packageName)) return undefined;
  const where = `${existing.kind} ${existing.metadata.namespace}/${existing.metadata.name}`;
  return `${where} already exists and was not created by 'opkit run bundle' for package ${packageName}: it is left as it is; remove or rename it, or choose another --namespace`;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Parses `--env NAME=VALUE` options (the value may hold `=`). */
export function parseEnv(values: readonly string[]): { name: string; value: string }[] {
  const seen = new Set<string>();
  return values.map((item) => {
    const at = item.indexOf('=');
    const name = at < 0 ? item : item.slice(0, at);
    if (at < 0 || !ENV_NAME.test(name)) {
      throw new CliError(
        'OPKIT_ARGUMENT_INVALID',
        `--env ${JSON.stringify(item)}: expected NAME=VALUE with a variable name such as RELATED_IMAGE_MEMCACHED`,
      );
    }
    if (seen.has(name)) throw new CliError('OPKIT_ARGUMENT_INVALID', `--env ${name} is given twice`);
    seen.add(name);
    return { name, value: item.slice(at + 1) };
  });
}

/**
 * The repository the catalog image goes to by default: `<package>-catalog` beside the bundle's repository,
 * e.g. `quay.io/acme/memcached-operator-bundle:v0.1.0` → `quay.io/acme/memcached-operator-catalog`.
 */
export function defaultCatalogRepository(bundleReference: string, packageName: string): string {
  const { name } = splitTrailingTag(bundleReference.replace(/@.*$/, ''));
  const slash = name.lastIndexOf('/');
  return `${slash < 0 ? '' : name.slice(0, slash + 1)}${packageName}-catalog`;
}
