// Which objects `opkit cleanup` may delete: only what a run of `run bundle` for the package provably created,
// decided from objects already read, so the rule can be checked without a cluster.
import { DEPLOY_LABEL } from '../deployed-objects.js';
import {
  type CatalogSourceObject,
  type ClusterServiceVersion,
  createdAt,
  createdForPackage,
  type InstallPlan,
  type OlmObject,
  type OperatorGroup,
  RUN_BUNDLE_LABEL,
  type Subscription,
} from './olm-objects.js';

/** What cleanup reads before it decides. */
export interface ClusterView {
  readonly namespace: string;
  /** Every Subscription of the cluster: a CatalogSource may serve other namespaces too. */
  readonly subscriptions: readonly Subscription[];
  readonly catalogSources: readonly CatalogSourceObject[];
  readonly operatorGroups: readonly OperatorGroup[];
  readonly installPlans: readonly InstallPlan[];
  /** Every CSV of the cluster: a CRD stays while a CSV cleanup did not follow owns it. */
  readonly csvs: readonly ClusterServiceVersion[];
  /** False when listing all namespaces was forbidden and only the namespace's objects are known. */
  readonly wholeCluster: boolean;
}

/** An object not deleted, and why. */
export interface Left {
  readonly object: string;
  readonly reason: string;
}

/** What a run of `run bundle` for the package created, and what cleanup looked at and leaves. */
export interface Installation {
  readonly subscriptions: readonly Subscription[];
  readonly csvs: readonly ClusterServiceVersion[];
  readonly installPlans: readonly InstallPlan[];
  readonly catalogSources: readonly CatalogSourceObject[];
  readonly operatorGroups: readonly OperatorGroup[];
  /** CRDs the followed CSVs own: candidates, decided by {@link decideCrds}. */
  readonly crdNames: readonly string[];
  readonly left: readonly Left[];
}

export function describe(o: Pick<OlmObject, 'kind' | 'metadata'>): string {
  return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
}

/** OLM's copy of a CSV in a namespace its OperatorGroup targets; it goes with its original. */
function isCopy(csv: ClusterServiceVersion): boolean {
  return csv.metadata.labels?.['olm.copiedFrom'] !== undefined;
}

const NOT_CREATED = (packageName: string, namespace: string) =>
  `not created by 'opkit run bundle' for package ${packageName} in ${namespace} (no ${RUN_BUNDLE_LABEL} label and run annotation of it)`;

/**
 * Starts from the Subscriptions, CatalogSources and OperatorGroups that carry the run mark for the package and
 * namespace, and follows only links from them: each such Subscription → the CSVs its status names → the CRDs
 * they own; the InstallPlans no other Subscription shares. OLM's labels select nothing, and an InstallPlan
 * never leads to another package's CSV.
 */
export function selectInstallation(
  view: ClusterView,
  packageName: string,
  options: { readonly deleteOperatorGroups: boolean },
): Installation {
  const { namespace } = view;
  const left: Left[] = [];
  const leave = (o: OlmObject, reason: string) => left.push({ object: describe(o), reason });
  const inNamespace = view.subscriptions.filter((s) => s.metadata.namespace === namespace);
  const subscriptions: Subscription[] = [];
  for (const s of inNamespace) {
    const mine = createdForPackage(s, packageName) && s.spec.name === packageName;
    if (mine) subscriptions.push(s);
    else if (s.spec.name === packageName || s.metadata.labels?.[RUN_BUNDLE_LABEL] === packageName) {
      leave(s, NOT_CREATED(packageName, namespace));
    }
  }
  const mineUids = new Set(subscriptions.map((s) => s.metadata.uid));
  const others = view.subscriptions.filter((s) => !mineUids.has(s.metadata.uid));

  const csvs: ClusterServiceVersion[] = [];
  for (const s of subscriptions) {
    for (const name of new Set([s.status?.installedCSV, s.status?.currentCSV])) {
      const csv = view.csvs.find(
        (c) => c.metadata.namespace === namespace && c.metadata.name === name && !isCopy(c),
      );
      if (csv !== undefined && !csvs.includes(csv)) csvs.push(csv);
    }
  }

  const installPlans: InstallPlan[] = [];
  for (const plan of view.installPlans) {
    const owners = (plan.metadata.ownerReferences ?? []).filter((o) => o.kind === 'Subscription');
    if (!owners.some((o) => mineUids.has(o.uid))) continue;
    const shared = owners.filter((o) => !mineUids.has(o.uid));
    if (shared.length === 0) installPlans.push(plan);
    else
      leave(
        plan,
        `shared with ${shared.map((o) => `Subscription ${namespace}/${o.name}`).join(', ')}; its CSVs other than ours stay too`,
      );
  }

  const catalogSources: CatalogSourceObject[] = [];
  for (const source of view.catalogSources) {
    if (!createdForPackage(source, packageName)) {
      if (source.metadata.labels?.[RUN_BUNDLE_LABEL] === packageName) {
        leave(source, NOT_CREATED(packageName, namespace));
      }
      continue;
    }
    const users = others.filter(
      (s) => s.spec.source === source.metadata.name && s.spec.sourceNamespace === namespace,
    );
    if (users.length > 0) leave(source, `still the catalog of ${users.map(describe).join(', ')}`);
    else if (!view.wholeCluster) {
      leave(source, 'Subscriptions of other namespaces cannot be listed (forbidden): one may use it');
    } else catalogSources.push(source);
  }

  const operatorGroups: OperatorGroup[] = [];
  for (const group of view.operatorGroups) {
    if (!createdForPackage(group, packageName)) {
      if (group.metadata.labels?.[RUN_BUNDLE_LABEL] === packageName) {
        leave(group, NOT_CREATED(packageName, namespace));
      }
      continue;
    }
    const users = others.filter((s) => s.metadata.namespace === namespace);
    if (!options.deleteOperatorGroups) leave(group, '--no-delete-operator-groups');
    else if (users.length > 0) leave(group, `still used by ${users.map(describe).join(', ')}`);
    else operatorGroups.push(group);
  }

  const crdNames = [
    ...new Set(csvs.flatMap((c) => c.spec.customresourcedefinitions?.owned?.map((o) => o.name) ?? [])),
  ].sort();
  return { subscriptions, csvs, installPlans, catalogSources, operatorGroups, crdNames, left };
}

/** A CRD as cleanup sees it: present or not, and how many objects of its kind the cluster holds. */
export interface CrdState {
  readonly name: string;
  /** `spec.names.kind`, to say what its objects are. */
  readonly kind: string;
  readonly objects: number;
  /** `metadata.creationTimestamp`: one older than the run's Subscription was there before the run. */
  readonly createdAt?: Date;
  /** Whether it carries `opkit deploy`'s label or annotation: then `opkit undeploy` decides about it. */
  readonly deployed?: boolean;
}

/** `if-empty`: delete a CRD only when no object of its kind is left; `with-objects`: them too; `keep`: none. */
export type CrdPolicy = 'if-empty' | 'with-objects' | 'keep';

/**
 * The CRDs to delete among those the followed CSVs own: never one that a CSV cleanup did not follow also owns
 * (another install of the operator, or another operator sharing the API), one `opkit deploy` applied, or one
 * created before the run's Subscription (the run's CSV only adopted it); one that still has objects only under
 * `with-objects`.
 */
export function decideCrds(
  installation: Installation,
  view: Pick<ClusterView, 'csvs' | 'wholeCluster'>,
  crds: readonly CrdState[],
  policy: CrdPolicy,
): { readonly delete: readonly CrdState[]; readonly left: readonly Left[] } {
  const followed = new Set(installation.csvs);
  const runStart = earliest(installation.subscriptions);
  const remove: CrdState[] = [];
  const left: Left[] = [];
  for (const crd of crds) {
    const object = `CustomResourceDefinition ${crd.name}`;
    const owners = view.csvs.filter(
      (c) =>
        !followed.has(c) &&
        !isCopy(c) &&
        c.spec.customresourcedefinitions?.owned?.some((o) => o.name === crd.name) === true,
    );
    const count = `${crd.objects} ${crd.kind} object${crd.objects === 1 ? '' : 's'}`;
    if (owners.length > 0) left.push({ object, reason: `also owned by ${owners.map(describe).join(', ')}` });
    else if (crd.deployed) {
      left.push({ object, reason: `applied by opkit deploy (${DEPLOY_LABEL}): opkit undeploy removes it` });
    } else if (runStart && crd.createdAt && crd.createdAt.getTime() < runStart.at.getTime()) {
      left.push({
        object,
        reason: `created ${crd.createdAt.toISOString()}, before ${describe(runStart.subscription)} (${runStart.at.toISOString()}): the run found it`,
      });
    } else if (!view.wholeCluster) {
      left.push({
        object,
        reason: 'CSVs of other namespaces cannot be listed (forbidden): one may own it too',
      });
    } else if (policy === 'keep') left.push({ object, reason: '--no-delete-crds' });
    else if (crd.objects > 0 && policy !== 'with-objects') {
      left.push({ object, reason: `${count} still exist (--delete-crds deletes them with it)` });
    } else remove.push(crd);
  }
  return { delete: remove, left };
}

/** The run's oldest Subscription and when it was created, if the cluster said. */
function earliest(
  subscriptions: readonly Subscription[],
): { readonly subscription: Subscription; readonly at: Date } | undefined {
  let first: { subscription: Subscription; at: Date } | undefined;
  for (const subscription of subscriptions) {
    const at = createdAt(subscription);
    if (at && (!first || at.getTime() < first.at.getTime())) first = { subscription, at };
  }
  return first;
}
