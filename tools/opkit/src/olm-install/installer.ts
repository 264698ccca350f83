import { randomUUID } from 'node:crypto';
import type { ObjectHeader } from '../kube-connection.js';
import { create, type KubeApi, list, read, remove } from './cluster-objects.js';
import { type CrdManifest, OLM_API_GROUP, olmKindPlural } from './crds.js';
import {
  CATALOG_OPERATOR,
  type InstallObject,
  OLM_NAMESPACE,
  OLM_OPERATOR,
  type OlmInstallManifests,
  PACKAGE_SERVER,
} from './manifests.js';
import { createdByOlmInstall, markedObject, OLM_INSTALL_LABEL } from './ownership.js';

/** Why an install, status or uninstall could not go on. */
export class OlmInstallError extends Error {
  constructor(
    readonly code:
      | 'OLM_ALREADY_INSTALLED'
      | 'OLM_NOT_INSTALLED'
      | 'OLM_NOT_OURS'
      | 'OLM_IN_USE'
      | 'OLM_NOT_READY'
      | 'OLM_NOT_REMOVED',
    message: string,
  ) {
    super(message);
    this.name = 'OlmInstallError';
  }
}

/** One object of the install as found on the cluster. */
export interface OlmResourceStatus {
  readonly name: string;
  readonly namespace: string;
  readonly kind: string;
  /** `Installed`, `Available`, a CSV phase, `Unavailable: …` or `Not found`. */
  readonly status: string;
  readonly healthy: boolean;
}

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

interface Observed {
  readonly metadata?: {
    readonly deletionTimestamp?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec?: { readonly replicas?: number };
  readonly status?: {
    readonly phase?: string;
    readonly message?: string;
    readonly availableReplicas?: number;
    readonly conditions?: readonly Condition[];
  };
}

type AnyObject = InstallObject | CrdManifest;

/** Progress lines and the time allowed for waiting. */
export interface InstallRunOptions {
  readonly timeoutMs: number;
  readonly log: (line: string) => void;
  readonly pollIntervalMs?: number;
}

function describe(object: {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
}): string {
  const ns = 'namespace' in object.metadata ? object.metadata.namespace : undefined;
  return `${object.kind} ${ns ? `${ns}/` : ''}${object.metadata.name}`;
}

function statusOf(object: AnyObject, found: Observed | undefined): OlmResourceStatus {
  const namespace = ('namespace' in object.metadata ? object.metadata.namespace : undefined) ?? '';
  const base = { name: object.metadata.name, namespace, kind: object.kind };
  if (!found) return { ...base, status: 'Not found', healthy: false };
  if (found.metadata?.deletionTimestamp) return { ...base, status: 'Terminating', healthy: false };
  if (object.kind === 'Deployment') {
    const available = found.status?.conditions?.find((c) => c.type === 'Available');
    const ready = `${found.status?.availableReplicas ?? 0}/${found.spec?.replicas ?? 1} available`;
    return available?.status === 'True'
      ? { ...base, status: `Available (${ready})`, healthy: true }
      : { ...base, status: `Unavailable (${ready})`, healthy: false };
  }
  if (object.kind === 'ClusterServiceVersion') {
    const phase = found.status?.phase ?? 'Pending';
    return {
      ...base,
      status:
        phase === 'Succeeded' ? phase : `${phase}${found.status?.message ? `: ${found.status.message}` : ''}`,
      healthy: phase === 'Succeeded',
    };
  }
  if (object.kind === 'CustomResourceDefinition') {
    const established = found.status?.conditions?.some(
      (c) => c.type === 'Established' && c.status === 'True',
    );
    return established
      ? { ...base, status: 'Installed', healthy: true }
      : { ...base, status: 'Not established', healthy: false };
  }
  return { ...base, status: 'Installed', healthy: true };
}

/** The objects the packageserver CSV makes OLM deploy, checked along with the install's own. */
function derivedObjects(manifests: OlmInstallManifests): AnyObject[] {
  const hasPackageServer = manifests.resources.some(
    (r) => r.kind === 'ClusterServiceVersion' && r.metadata.name === PACKAGE_SERVER,
  );
  return hasPackageServer
    ? [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: PACKAGE_SERVER, namespace: OLM_NAMESPACE },
        },
      ]
    : [];
}

function allObjects(manifests: OlmInstallManifests): AnyObject[] {
  return [...manifests.crds, ...manifests.resources, ...derivedObjects(manifests)];
}

/** Each object of the install with its state on the cluster, in install order. */
export async function olmStatus(api: KubeApi, manifests: OlmInstallManifests): Promise<OlmResourceStatus[]> {
  return Promise.all(allObjects(manifests).map(async (o) => statusOf(o, await read(api, o))));
}

async function poll(
  what: string,
  options: InstallRunOptions,
  deadline: number,
  check: () => Promise<string | true>,
): Promise<void> {
  let last: string | undefined;
  for (;;) {
    const state = await check();
    if (state === true) return;
    if (state !== last) options.log(`  ${what}: ${state}`);
    last = state;
    if (Date.now() >= deadline) {
      throw new OlmInstallError(
        'OLM_NOT_READY',
        `${what} was not ready within ${Math.round(options.timeoutMs / 1000)}s (last: ${state})`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollIntervalMs ?? 1000));
  }
}

/**
 * Installs OLM as operator-sdk's `olm install` does: refuses when any object of the install exists, creates
 * the CRDs and waits until they are established, creates the rest, then waits for the olm-operator and
 * catalog-operator Deployments and, when installed, the packageserver CSV. Every object it creates carries
 * the install's mark ({@link markedObject}), by which {@link uninstallOlm} knows it.
 *
 * @throws OlmInstallError `OLM_ALREADY_INSTALLED` naming the first object found, `OLM_NOT_READY` naming
 * what was not ready in time.
 */
export async function installOlm(
  api: KubeApi,
  manifests: OlmInstallManifests,
  options: InstallRunOptions,
): Promise<OlmResourceStatus[]> {
  const deadline = Date.now() + options.timeoutMs;
  options.log('checking for an existing OLM install');
  const existing = (await olmStatus(api, manifests)).find((s) => s.status !== 'Not found');
  if (existing) {
    throw new OlmInstallError(
      'OLM_ALREADY_INSTALLED',
      `OLM is already installed (found ${existing.kind} ${existing.namespace ? `${existing.namespace}/` : ''}${existing.name}): uninstall it first with \`opkit olm uninstall\``,
    );
  }
  const run = randomUUID();
  options.log(`creating ${manifests.crds.length} CustomResourceDefinitions`);
  for (const crd of manifests.crds) {
    await create(api, markedObject(crd, run), deadline);
  }
  for (const crd of manifests.crds) {
    await poll(describe(crd), options, deadline, async () => {
      const s = statusOf(crd, await read(api, crd));
      return s.healthy || s.status;
    });
  }
  options.log(`creating ${manifests.resources.length} resources`);
  for (const object of manifests.resources) {
    await create(api, markedObject(object, run), deadline);
    options.log(`  created ${describe(object)}`);
  }
  const waitFor = async (object: AnyObject) => {
    options.log(`waiting for ${describe(object)}`);
    await poll(describe(object), options, deadline, async () => {
      const s = statusOf(object, await read(api, object));
      return s.healthy || s.status;
    });
  };
  for (const name of [OLM_OPERATOR, CATALOG_OPERATOR]) {
    const deployment = manifests.resources.find((r) => r.kind === 'Deployment' && r.metadata.name === name);
    if (deployment) await waitFor(deployment);
  }
  const csv = manifests.resources.find((r) => r.kind === 'ClusterServiceVersion');
  if (csv) await waitFor(csv);
  for (const derived of derivedObjects(manifests)) await waitFor(derived);
  return olmStatus(api, manifests);
}

/**
 * What OLM manages, deleted before OLM itself (while its operators still run): Subscriptions first so
 * nothing is reinstalled, then InstallPlans, CSVs (OLM's garbage collection removes the operators'
 * Deployments with them), CatalogSources and the rest. They live in OLM's CRDs, so they go with them anyway.
 */
const MANAGED_KINDS: readonly { readonly apiVersion: string; readonly kind: string }[] = [
  { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription' },
  { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'InstallPlan' },
  { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion' },
  { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource' },
  { apiVersion: 'operators.coreos.com/v2', kind: 'OperatorCondition' },
  { apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup' },
  { apiVersion: 'operators.coreos.com/v1', kind: 'OLMConfig' },
];
// Operators are not among them: the olm operator recreates an Operator while anything still carries its
// component label (the CRDs an operator's CSV installed outlive it). Deleting the CRDs removes them.

interface OwnerReference {
  readonly kind: string;
  readonly name: string;
  readonly controller?: boolean;
}

interface Listed extends Observed {
  readonly metadata: Observed['metadata'] & {
    readonly name: string;
    readonly namespace?: string;
    readonly ownerReferences?: readonly OwnerReference[];
  };
}

/** Options of {@link uninstallOlm}. */
export interface UninstallOptions extends InstallRunOptions {
  /**
   * Delete OLM's CRDs even while they hold objects the install did not create (Subscriptions, CSVs and the
   * operators they run, CatalogSources, …), and those objects first. Without it such objects stop the
   * uninstall before anything is deleted.
   */
  readonly deleteCrds?: boolean;
}

/**
 * Whether OLM made a managed object that is not a user's in its own right: its `cluster` OLMConfig, OLM's
 * copies of a CSV in the namespaces its OperatorGroup targets, and the OperatorCondition it makes for every
 * CSV (the packageserver's too). They go with what they derive from; the CSV is what counts.
 */
function derivedByOlm(kind: string, item: Listed): boolean {
  return (
    (kind === 'OLMConfig' && item.metadata.name === 'cluster') ||
    (kind === 'ClusterServiceVersion' && item.metadata.labels?.['olm.copiedFrom'] !== undefined) ||
    (kind === 'OperatorCondition' &&
      item.metadata.ownerReferences?.some(
        (o) => o.controller === true && o.kind === 'ClusterServiceVersion',
      ) === true)
  );
}

/**
 * What users commonly keep in a namespace. A namespace of the install holding one of these that is theirs is
 * not deleted: deleting it would delete their objects with it.
 */
const NAMESPACE_CONTENT_KINDS: readonly { readonly apiVersion: string; readonly kind: string }[] = [
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'apps/v1', kind: 'StatefulSet' },
  { apiVersion: 'apps/v1', kind: 'DaemonSet' },
  { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
  { apiVersion: 'batch/v1', kind: 'CronJob' },
  { apiVersion: 'batch/v1', kind: 'Job' },
  { apiVersion: 'v1', kind: 'Pod' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'v1', kind: 'ServiceAccount' },
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'v1', kind: 'Secret' },
];

/**
 * Owners whose dependents are judged through them: the kinds above (each listed and judged itself) and OLM's
 * (a user's are refused before anything is deleted; OLM's go with the install). An operator's Pods, the
 * Services and Secrets OLM makes for a CSV, a CatalogSource's registry Pod are not a user's in their own right.
 */
const JUDGED_OWNER_KINDS = new Set([
  ...NAMESPACE_CONTENT_KINDS.map((k) => k.kind),
  ...MANAGED_KINDS.map((k) => k.kind),
]);

/** Whether an object in one of the install's namespaces was put there by a user (and would die with it). */
function placedByUser(kind: string, item: Listed & { readonly type?: string }): boolean {
  const { name, ownerReferences } = item.metadata;
  if (createdByOlmInstall({ kind, metadata: item.metadata }, item)) return false;
  if (ownerReferences?.some((o) => JUDGED_OWNER_KINDS.has(o.kind))) return false;
  // What Kubernetes puts in every namespace, and a token Secret that goes with its ServiceAccount.
  if (kind === 'ConfigMap' && name === 'kube-root-ca.crt') return false;
  if (kind === 'ServiceAccount' && name === 'default') return false;
  return !(kind === 'Secret' && item.type === 'kubernetes.io/service-account-token');
}

/** The objects users put in a namespace, as `2 ConfigMaps, 1 Secret` and their names; empty when none. */
async function userContent(api: KubeApi, namespace: string): Promise<{ counts: string[]; names: string[] }> {
  const found = await Promise.all(
    NAMESPACE_CONTENT_KINDS.map(async ({ apiVersion, kind }) => ({
      kind,
      items: (await list(api, { apiVersion, kind }, namespace)).filter((i) => placedByUser(kind, i)),
    })),
  );
  const present = found.filter((f) => f.items.length > 0);
  return {
    counts: present.map((f) => `${f.items.length} ${f.kind}${f.items.length === 1 ? '' : 's'}`),
    names: present.flatMap((f) => f.items.map((i) => `${f.kind} ${namespace}/${i.metadata.name}`)),
  };
}

/**
 * Removes OLM, deleting only what `olm install` provably created (its mark, {@link createdByOlmInstall}):
 * refuses when none of the install's objects carries it, and leaves, naming them, those that do not. OLM's
 * CRDs hold everything OLM manages; when they hold objects the install did not create, it refuses unless
 * `deleteCrds`, then deletes those objects first (counted per kind) while OLM still runs. Then the
 * packageserver's APIService and the install's own objects in reverse order (the CRDs last), waiting until
 * each is gone; a namespace of the install that holds objects users put there (Deployments, ConfigMaps,
 * Secrets, …) is left, with one line counting them.
 *
 * @throws OlmInstallError `OLM_NOT_INSTALLED` when no object of the install exists; `OLM_NOT_OURS` when none
 * was created by `olm install`; `OLM_IN_USE` naming the objects OLM's CRDs still hold; `OLM_NOT_REMOVED`
 * naming what still exists when the timeout passes.
 */
export async function uninstallOlm(
  api: KubeApi,
  manifests: OlmInstallManifests,
  options: UninstallOptions,
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  const own: AnyObject[] = [...[...manifests.resources].reverse(), ...manifests.crds];
  const found = await Promise.all(own.map(async (o) => ({ object: o, found: await read(api, o) })));
  const present = found.filter((f) => f.found !== undefined);
  if (present.length === 0) {
    throw new OlmInstallError('OLM_NOT_INSTALLED', 'OLM is not installed: none of its objects exist');
  }
  const ours = present.filter((f) => createdByOlmInstall(f.object, f.found)).map((f) => f.object);
  const foreign = present.filter((f) => !ours.includes(f.object)).map((f) => f.object);
  if (ours.length === 0) {
    throw new OlmInstallError(
      'OLM_NOT_OURS',
      `OLM on this cluster was not installed by \`opkit olm install\` (${foreign.map(describe).slice(0, 1).join('')} carries no ${OLM_INSTALL_LABEL} mark): nothing deleted`,
    );
  }
  const ourCrds = new Set(
    ours.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name),
  );
  const goingKinds = MANAGED_KINDS.filter(({ kind }) =>
    ourCrds.has(`${olmKindPlural(kind)}.${OLM_API_GROUP}`),
  );
  const managed = await Promise.all(
    goingKinds.map(async ({ apiVersion, kind }) => {
      const items: Listed[] = await list(api, { apiVersion, kind });
      const header = (item: Listed) => ({ kind, metadata: item.metadata });
      const users = items.filter((i) => !derivedByOlm(kind, i) && !createdByOlmInstall(header(i), i));
      return { apiVersion, kind, items, users };
    }),
  );
  const counts = managed
    .filter((m) => m.users.length > 0)
    .map((m) => `${m.users.length} ${m.kind}${m.users.length === 1 ? '' : 's'}`);
  if (counts.length > 0) {
    const first = managed.flatMap((m) =>
      m.users.map((u) => describe({ kind: m.kind, metadata: u.metadata })),
    );
    if (options.deleteCrds !== true) {
      throw new OlmInstallError(
        'OLM_IN_USE',
        `OLM's CRDs hold ${counts.join(', ')} that \`opkit olm install\` did not create (${first.slice(0, 3).join(', ')}${first.length > 3 ? ', …' : ''}), and would go with them: remove them first, or give --delete-crds to delete them too; nothing deleted`,
      );
    }
    options.log(`deleting ${counts.join(', ')} not created by olm install, with OLM's CRDs (--delete-crds)`);
  }
  for (const object of foreign) {
    options.log(
      `leaving ${describe(object)}: not created by opkit olm install (no ${OLM_INSTALL_LABEL} mark)`,
    );
  }
  const gone = async (object: ObjectHeader, what: string) => {
    for (;;) {
      if ((await read(api, object)) === undefined) return;
      if (Date.now() >= deadline) {
        throw new OlmInstallError(
          'OLM_NOT_REMOVED',
          `${what} still exists after ${Math.round(options.timeoutMs / 1000)}s`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, options.pollIntervalMs ?? 500));
    }
  };
  for (const { apiVersion, kind, items } of managed) {
    if (items.length === 0) continue;
    options.log(`deleting ${items.length} ${kind}${items.length === 1 ? '' : 's'}`);
    const objects = items.map((item) => ({ apiVersion, kind, metadata: item.metadata }));
    for (const object of objects) await remove(api, object);
    for (const object of objects) {
      const { name, namespace } = object.metadata;
      await gone(object, `${kind} ${namespace ? `${namespace}/` : ''}${name}`);
    }
  }
  // The packageserver's APIService outlives its Deployment; while it names a Service that no longer answers,
  // API discovery fails and the namespace controller cannot finish deleting any namespace. OLM made it for
  // the install's packageserver CSV, so it goes with that.
  const apiService = {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: 'v1.packages.operators.coreos.com' },
  };
  if (
    ours.some((o) => o.kind === 'ClusterServiceVersion' && o.metadata.name === PACKAGE_SERVER) &&
    (await remove(api, apiService))
  ) {
    options.log(`deleting ${describe(apiService)}`);
    await gone(apiService, describe(apiService));
  }
  const kept = new Set<AnyObject>();
  for (const object of ours.filter((o) => o.kind === 'Namespace')) {
    const { counts, names } = await userContent(api, object.metadata.name);
    if (counts.length === 0) continue;
    kept.add(object);
    options.log(
      `leaving ${describe(object)}: it holds ${counts.join(', ')} not created by opkit olm install (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''})`,
    );
  }
  const deleting = ours.filter((o) => !kept.has(o));
  for (const object of deleting) {
    if (await remove(api, object)) options.log(`deleting ${describe(object)}`);
  }
  for (const object of deleting) await gone(object, describe(object));
}
