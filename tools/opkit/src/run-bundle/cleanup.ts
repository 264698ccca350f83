// `opkit cleanup <package>`: removes what `opkit run bundle` installed, as `operator-sdk cleanup` does, and
// nothing it cannot prove a run of it created.
import { ApiError } from '@opkit/controller-runtime/client';
import { DEPLOY_LABEL, DEPLOY_RUN_ANNOTATION } from '../deployed-objects.js';
import {
  type ClusterView,
  type CrdPolicy,
  type CrdState,
  decideCrds,
  describe,
  type Left,
  selectInstallation,
} from './cleanup-selection.js';
import { type Cluster, connect, Deadline, list, readOptional, remove, waitFor } from './cluster.js';
import {
  type CatalogSourceObject,
  type ClusterServiceVersion,
  createdAt,
  type InstallPlan,
  OLM_V1,
  OLM_V1ALPHA1,
  type OlmObject,
  type OperatorGroup,
  type Subscription,
} from './olm-objects.js';

export interface CleanupOptions {
  readonly packageName: string;
  readonly namespace?: string;
  readonly kubeconfig?: string;
  /** Which CRDs the followed CSVs own go (a CRD another CSV owns never does). */
  readonly crds: CrdPolicy;
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

interface Crd extends OlmObject {
  spec: {
    group: string;
    names: { kind: string };
    versions: { name: string; served: boolean; storage: boolean }[];
  };
}

/**
 * Objects of a kind in every namespace; only the command's namespace when listing all is forbidden (a user
 * whose rights end at the namespace), saying so.
 */
async function listAll<T extends OlmObject>(
  cluster: Cluster,
  apiVersion: string,
  kind: string,
): Promise<{ items: T[]; wholeCluster: boolean }> {
  try {
    return { items: await list<T>(cluster, apiVersion, kind), wholeCluster: true };
  } catch (err) {
    const cause = err instanceof Error ? err.cause : undefined;
    if (!(cause instanceof ApiError && cause.status === 403)) throw err;
    return {
      items: await list<T>(cluster, apiVersion, kind, { namespace: cluster.namespace }),
      wholeCluster: false,
    };
  }
}

async function readView(cluster: Cluster): Promise<ClusterView> {
  const { namespace } = cluster;
  const [subscriptions, catalogSources, operatorGroups, installPlans, csvs] = await Promise.all([
    listAll<Subscription>(cluster, OLM_V1ALPHA1, 'Subscription'),
    list<CatalogSourceObject>(cluster, OLM_V1ALPHA1, 'CatalogSource', { namespace }),
    list<OperatorGroup>(cluster, OLM_V1, 'OperatorGroup', { namespace }),
    list<InstallPlan>(cluster, OLM_V1ALPHA1, 'InstallPlan', { namespace }),
    listAll<ClusterServiceVersion>(cluster, OLM_V1ALPHA1, 'ClusterServiceVersion'),
  ]);
  return {
    namespace,
    subscriptions: subscriptions.items,
    catalogSources,
    operatorGroups,
    installPlans,
    csvs: csvs.items,
    wholeCluster: subscriptions.wholeCluster && csvs.wholeCluster,
  };
}

/** Each named CRD that exists, with the number of objects of its kind in the whole cluster. */
async function crdStates(cluster: Cluster, names: readonly string[]): Promise<CrdState[]> {
  const states: CrdState[] = [];
  for (const name of names) {
    const crd = await readOptional<Crd>(cluster, header(CRD_API, 'CustomResourceDefinition', name));
    if (crd === undefined) continue;
    const version = crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions.find((v) => v.served);
    const objects =
      version === undefined
        ? []
        : await list(cluster, `${crd.spec.group}/${version.name}`, crd.spec.names.kind);
    const at = createdAt(crd);
    const { labels, annotations } = crd.metadata;
    states.push({
      name,
      kind: crd.spec.names.kind,
      objects: objects.length,
      ...(at === undefined ? {} : { createdAt: at }),
      deployed: labels?.[DEPLOY_LABEL] !== undefined || annotations?.[DEPLOY_RUN_ANNOTATION] !== undefined,
    });
  }
  return states;
}

/** What to delete, step by step, and what is left and why. */
async function plan(cluster: Cluster, options: CleanupOptions): Promise<{ steps: Header[][]; left: Left[] }> {
  const { namespace } = cluster;
  const view = await readView(cluster);
  const found = selectInstallation(view, options.packageName, options);
  // Without rights beyond the namespace, the CRDs are neither read nor counted: they all stay.
  const states = view.wholeCluster
    ? await crdStates(cluster, found.crdNames)
    : found.crdNames.map((name) => ({ name, kind: '', objects: 0 }));
  const crds = decideCrds(found, view, states, options.crds);
  const counts = new Map(crds.delete.map((c) => [c.name, c]));
  for (const crd of crds.delete) {
    if (crd.objects > 0) {
      options.log(
        `CustomResourceDefinition ${crd.name} goes with its ${crd.objects} ${crd.kind} object${crd.objects === 1 ? '' : 's'} (--delete-crds)`,
      );
    }
  }
  // In this order: no upgrade starts; the operator still runs to finalize its custom resources while their
  // CRDs go; then the operator and what installed it.
  const steps = [
    found.subscriptions.map((s) => header(OLM_V1ALPHA1, 'Subscription', s.metadata.name, namespace)),
    [...counts.keys()].map((name) => header(CRD_API, 'CustomResourceDefinition', name)),
    found.csvs.map((c) => header(OLM_V1ALPHA1, 'ClusterServiceVersion', c.metadata.name, namespace)),
    found.installPlans.map((p) => header(OLM_V1ALPHA1, 'InstallPlan', p.metadata.name, namespace)),
    found.catalogSources.map((s) => header(OLM_V1ALPHA1, 'CatalogSource', s.metadata.name, namespace)),
    found.operatorGroups.map((g) => header(OLM_V1, 'OperatorGroup', g.metadata.name, namespace)),
  ].filter((step) => step.length > 0);
  return { steps, left: [...found.left, ...crds.left] };
}

/**
 * Deletes the package's installation step by step, waiting until each step's objects are gone. Running it
 * again finds nothing and succeeds: cleanup is idempotent.
 *
 * @returns the objects deleted
 */
export async function cleanup(options: CleanupOptions): Promise<string[]> {
  const cluster = connect(options.kubeconfig, options.namespace);
  try {
    return await cleanupIn(cluster, options);
  } finally {
    await cluster.close();
  }
}

/** {@link cleanup} on a cluster already connected to. */
export async function cleanupIn(cluster: Cluster, options: CleanupOptions): Promise<string[]> {
  const deadline = new Deadline(options.timeoutMs);
  const { steps, left } = await plan(cluster, options);
  for (const l of left) options.log(`leaving ${l.object}: ${l.reason}`);
  if (steps.length === 0) {
    options.log(
      `nothing to clean up: no objects of package ${options.packageName} created by 'opkit run bundle' in namespace ${cluster.namespace}`,
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
