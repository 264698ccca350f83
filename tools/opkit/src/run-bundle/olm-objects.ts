// The OLM objects `opkit run bundle` creates, their names and the label by which `opkit cleanup` finds them.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ObjectMeta } from '@opkit/controller-runtime';
import { splitTrailingTag } from '@opkit/oci/reference-grammar';
import type { OperatorGroupTarget } from '@opkit/olm';
import { CliError } from '../cli-error.js';
import type { SecurityContextConfig } from '../publish.js';

/** Marks every object `run bundle` creates; the value is the package. `cleanup` deletes only what carries it. */
export const RUN_BUNDLE_LABEL = 'opkit.dev/run-bundle';
export const FIELD_MANAGER = 'opkit';
export const OLM_V1ALPHA1 = 'operators.coreos.com/v1alpha1';
export const OLM_V1 = 'operators.coreos.com/v1';

/** Names of the objects for a package: one installation per package and namespace. */
export function objectNames(packageName: string): { catalogSource: string; subscription: string } {
  return { catalogSource: `${packageName}-catalog`, subscription: packageName };
}
/** The OperatorGroup `run bundle` creates when the namespace has none (a namespace holds at most one). */
export const OPERATOR_GROUP_NAME = 'opkit-run-bundle';

export interface OlmObject extends KubernetesObject {
  apiVersion: string;
  kind: string;
  /** The fields of metadata used here, name always set; no timestamps, which client-node's model has as Dates. */
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

function labels(packageName: string): Record<string, string> {
  return { [RUN_BUNDLE_LABEL]: packageName };
}

/** An OperatorGroup for the chosen install mode (no targetNamespaces: all namespaces). */
export function operatorGroupManifest(
  namespace: string,
  packageName: string,
  target: OperatorGroupTarget,
): OperatorGroup {
  return {
    apiVersion: OLM_V1,
    kind: 'OperatorGroup',
    metadata: { name: OPERATOR_GROUP_NAME, namespace, labels: labels(packageName) },
    spec: target.targetNamespaces.length > 0 ? { targetNamespaces: [...target.targetNamespaces] } : {},
  };
}

/**
 * A Subscription to the package's channel in its own catalog, starting at the bundle's CSV, with manual
 * approval: `run bundle` approves exactly the plan that installs the bundle it was given, as operator-sdk does.
 */
export function subscriptionManifest(options: {
  readonly namespace: string;
  readonly packageName: string;
  readonly channel: string;
  readonly startingCSV: string;
  readonly env: readonly { name: string; value: string }[];
}): Subscription {
  const names = objectNames(options.packageName);
  return {
    apiVersion: OLM_V1ALPHA1,
    kind: 'Subscription',
    metadata: { name: names.subscription, namespace: options.namespace, labels: labels(options.packageName) },
    spec: {
      channel: options.channel,
      name: options.packageName,
      source: names.catalogSource,
      sourceNamespace: options.namespace,
      installPlanApproval: 'Manual',
      startingCSV: options.startingCSV,
      ...(options.env.length > 0 ? { config: { env: options.env.map((e) => ({ ...e })) } } : {}),
    },
  };
}

/** The labels a CatalogSource of `run bundle` carries. */
export function catalogSourceLabels(packageName: string): Record<string, string> {
  return labels(packageName);
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
