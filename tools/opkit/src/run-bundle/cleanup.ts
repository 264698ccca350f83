// `opkit cleanup <package>`: removes what `opkit run bundle` installed, as `operator-sdk cleanup` does.
import { type Cluster, connect, Deadline, list, readOptional, remove, waitFor } from './cluster.js';
import {
  type CatalogSourceObject,
  type ClusterServiceVersion,
  type InstallPlan,
  OLM_V1,
  OLM_V1ALPHA1,
  type OlmObject,
  type OperatorGroup,
  RUN_BUNDLE_LABEL,
  type Subscription,
} from './olm-objects.js';

export interface CleanupOptions {
  readonly packageName: string;
  readonly namespace?: string;
  readonly kubeconfig?: string;
  /** Delete the CRDs the CSVs own, and with them every custom resource of theirs (operator-sdk's default). */
  readonly deleteCrds: boolean;
  /** Delete the OperatorGroup `run bundle` created, once no other Subscription in the namespace needs it. */
  readonly deleteOperatorGroups: boolean;
  readonly timeoutMs: number;
  readonly log: (line: string) => void;
}

const CRD_API = 'apiextensions.k8s.io/v1';

type Header = Pick<OlmObject, 'apiVersion' | 'kind'> & { metadata: { name: string; namespace?: string } };

function header(apiVersion: string, kind: string, name: string, namespace?: string): Header {
  return { apiVersion, kind, metadata: { name, ...(namespace === undefined ? {} : { namespace }) } };
}

function describe(o: Header): string {
  return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
}

/**
 * What `run bundle` made for the package in the namespace: its labelled Subscription and CatalogSource, the
 * CSVs they installed or are installing (OLM's operator label, the Subscription's status, its InstallPlans),
 * those InstallPlans, the owned CRDs, and its OperatorGroup when nothing else in the namespace subscribes.
 */
async function installation(cluster: Cluster, options: CleanupOptions): Promise<Header[][]> {
  const { namespace } = cluster;
  const selector = `${RUN_BUNDLE_LABEL}=${options.packageName}`;
  const subscriptions = await list<Subscription>(cluster, OLM_V1ALPHA1, 'Subscription', {
    namespace,
    labelSelector: selector,
  });
  const sources = await list<CatalogSourceObject>(cluster, OLM_V1ALPHA1, 'CatalogSource', {
    namespace,
    labelSelector: selector,
  });
  const csvNames = new Set<string>();
  for (const s of subscriptions) {
    for (const name of [s.status?.installedCSV, s.status?.currentCSV]) if (name) csvNames.add(name);
  }
  const operatorLabel = `operators.coreos.com/${options.packageName}.${namespace}`;
  if (operatorLabel.length - 'operators.coreos.com/'.length <= 63) {
    for (const csv of await list<ClusterServiceVersion>(cluster, OLM_V1ALPHA1, 'ClusterServiceVersion', {
      namespace,
      labelSelector: operatorLabel,
    })) {
      csvNames.add(csv.metadata.name);
    }
  }
  const subscriptionUids = new Set(subscriptions.map((s) => s.metadata.uid));
  const plans = (await list<InstallPlan>(cluster, OLM_V1ALPHA1, 'InstallPlan', { namespace })).filter(
    (p) =>
      p.metadata.ownerReferences?.some((o) => o.kind === 'Subscription' && subscriptionUids.has(o.uid)) ||
      p.spec.clusterServiceVersionNames.some((n) => csvNames.has(n)),
  );
  for (const p of plans) for (const n of p.spec.clusterServiceVersionNames) csvNames.add(n);
  const csvs: ClusterServiceVersion[] = [];
  for (const name of [...csvNames].sort()) {
    const csv = await readOptional<ClusterServiceVersion>(
      cluster,
      header(OLM_V1ALPHA1, 'ClusterServiceVersion', name, namespace),
    );
    if (csv) csvs.push(csv);
  }
  const crds = options.deleteCrds
    ? [
        ...new Set(csvs.flatMap((c) => c.spec.customresourcedefinitions?.owned?.map((o) => o.name) ?? [])),
      ].sort()
    : [];
  let groups: OperatorGroup[] = [];
  if (options.deleteOperatorGroups) {
    const others = (await list<Subscription>(cluster, OLM_V1ALPHA1, 'Subscription', { namespace })).filter(
      (s) => !subscriptionUids.has(s.metadata.uid),
    );
    if (others.length === 0) {
      groups = (await list<OperatorGroup>(cluster, OLM_V1, 'OperatorGroup', { namespace })).filter(
        (g) => g.metadata.labels?.[RUN_BUNDLE_LABEL] !== undefined,
      );
    }
  }
  // In this order: no upgrade starts; the operator still runs to finalize its custom resources while their
  // CRDs go; then the operator and what installed it.
  return [
    subscriptions.map((s) => header(OLM_V1ALPHA1, 'Subscription', s.metadata.name, namespace)),
    crds.map((name) => header(CRD_API, 'CustomResourceDefinition', name)),
    csvs.map((c) => header(OLM_V1ALPHA1, 'ClusterServiceVersion', c.metadata.name, namespace)),
    plans.map((p) => header(OLM_V1ALPHA1, 'InstallPlan', p.metadata.name, namespace)),
    sources.map((s) => header(OLM_V1ALPHA1, 'CatalogSource', s.metadata.name, namespace)),
    groups.map((g) => header(OLM_V1, 'OperatorGroup', g.metadata.name, namespace)),
  ].filter((step) => step.length > 0);
}

/**
 * Deletes the package's installation step by step, waiting until each step's objects are gone. Running it
 * again finds nothing and succeeds: cleanup is idempotent.
 *
 * @returns the objects deleted
 */
export async function cleanup(options: CleanupOptions): Promise<string[]> {
  const cluster = connect(options.kubeconfig, options.namespace);
  const deadline = new Deadline(options.timeoutMs);
  const steps = await installation(cluster, options);
  if (steps.length === 0) {
    options.log(
      `nothing to clean up: no objects of package ${options.packageName} from 'opkit run bundle' in namespace ${cluster.namespace}`,
    );
    return [];
  }
  const deleted: string[] = [];
  for (const step of steps) {
    for (const object of step) {
      if (await remove(cluster, object)) options.log(`deleting ${describe(object)}`);
    }
    await waitFor(
      `${step.map(describe).join(', ')} to be gone`,
      deadline,
      async (state) => {
        const left: string[] = [];
        for (const object of step) if (await readOptional(cluster, object)) left.push(describe(object));
        if (left.length > 0) state(`waiting for ${left.join(', ')}`);
        return left.length === 0 ? true : undefined;
      },
      { log: options.log },
    );
    for (const object of step) {
      deleted.push(describe(object));
      options.log(`deleted ${describe(object)}`);
    }
  }
  return deleted;
}
