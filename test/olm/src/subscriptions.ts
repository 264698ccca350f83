import { KubeApiError, type KubeRest } from '@opkit/test-cluster';
import { eventually } from '@opkit/test-cluster/vitest';
import {
  type ClusterServiceVersion,
  type InstallPlan,
  OLM_V1ALPHA1,
  type Subscription,
} from './olm-types.js';

/**
 * A namespace with an OperatorGroup, ready for Subscriptions. The group targets all namespaces unless
 * `targetNamespaces` are given.
 */
export async function createInstallNamespace(
  rest: KubeRest,
  namespace: string,
  options: { readonly targetNamespaces?: readonly string[] } = {},
): Promise<void> {
  await rest.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
  });
  await rest.request('POST', `/apis/operators.coreos.com/v1/namespaces/${namespace}/operatorgroups`, {
    body: {
      apiVersion: 'operators.coreos.com/v1',
      kind: 'OperatorGroup',
      metadata: { name: namespace, namespace },
      spec: options.targetNamespaces ? { targetNamespaces: options.targetNamespaces } : {},
    },
  });
}

export interface SubscribeOptions {
  readonly namespace: string;
  readonly packageName: string;
  readonly channel: string;
  readonly source: string;
  readonly sourceNamespace: string;
  readonly startingCSV?: string;
  /** Environment OLM adds to the operator's containers (`spec.config.env`), e.g. operand image overrides. */
  readonly env?: Readonly<Record<string, string>>;
}

/** Subscribes with manual approval, so every step along the channel waits for the test. */
export async function subscribe(rest: KubeRest, options: SubscribeOptions): Promise<void> {
  await rest.request('POST', `${OLM_V1ALPHA1}/namespaces/${options.namespace}/subscriptions`, {
    body: {
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'Subscription',
      metadata: { name: options.packageName, namespace: options.namespace },
      spec: {
        channel: options.channel,
        name: options.packageName,
        source: options.source,
        sourceNamespace: options.sourceNamespace,
        installPlanApproval: 'Manual',
        ...(options.startingCSV ? { startingCSV: options.startingCSV } : {}),
        ...(options.env
          ? { config: { env: Object.entries(options.env).map(([name, value]) => ({ name, value })) } }
          : {}),
      },
    },
  });
}

/**
 * Waits for the InstallPlan the Subscription points at to ask for approval, checks what it would install
 * and approves it. Only the plan named by `status.installPlanRef` counts: OLM may replace a plan it has
 * just created (a newer resolution generation), and the replaced one is never executed. Approving a plan
 * before OLM has written its first status races OLM's own update of it, so the plan must be in
 * `RequiresApproval` first. Returns the names of the CSVs the approved plan installs.
 */
export async function approveNextInstallPlan(
  rest: KubeRest,
  namespace: string,
  subscription: string,
  options: { readonly timeoutMs?: number } = {},
): Promise<readonly string[]> {
  const plans = `${OLM_V1ALPHA1}/namespaces/${namespace}/installplans`;
  const plan = await eventually(
    `the InstallPlan of Subscription ${namespace}/${subscription} to require approval`,
    async () => {
      const sub = await rest.request<Subscription>(
        'GET',
        `${OLM_V1ALPHA1}/namespaces/${namespace}/subscriptions/${subscription}`,
      );
      const name = sub.status?.installPlanRef?.name;
      // Not ready yet: the reason goes into the time-out error (OLM's resolution failures are conditions).
      const state = () =>
        `state ${sub.status?.state ?? '(none)'}, conditions ${JSON.stringify(sub.status?.conditions ?? [])}`;
      if (!name || sub.status?.state !== 'UpgradePending') throw new Error(state());
      const current = await rest.request<InstallPlan>('GET', `${plans}/${name}`);
      if (current.status?.phase === 'RequiresApproval' && !current.spec.approved) return current;
      throw new Error(`InstallPlan ${name} is ${current.status?.phase ?? 'new'}; ${state()}`);
    },
    { timeoutMs: options.timeoutMs ?? 120_000, intervalMs: 250 },
  );
  await rest.request('PATCH', `${plans}/${plan.metadata.name}`, {
    body: { spec: { approved: true } },
    contentType: 'application/merge-patch+json',
  });
  return plan.spec.clusterServiceVersionNames;
}

/**
 * Waits for the InstallPlan the Subscription points at to fail — phase Failed, or the error OLM reports in
 * `status.message` while it retries the step (it gives up after its retry time-out) — and returns OLM's words.
 */
export async function installPlanFailure(
  rest: KubeRest,
  namespace: string,
  subscription: string,
): Promise<string> {
  return eventually(
    `the InstallPlan of Subscription ${namespace}/${subscription} to fail`,
    async () => {
      const sub = await rest.request<Subscription>(
        'GET',
        `${OLM_V1ALPHA1}/namespaces/${namespace}/subscriptions/${subscription}`,
      );
      const name = sub.status?.installPlanRef?.name;
      if (!name) return undefined;
      const plan = await rest.request<InstallPlan>(
        'GET',
        `${OLM_V1ALPHA1}/namespaces/${namespace}/installplans/${name}`,
      );
      const retrying = plan.status?.message?.startsWith('retrying execution due to error:');
      if (plan.status?.phase === 'Failed' || retrying) return plan.status?.message ?? 'failed';
      throw new Error(`InstallPlan ${name} is ${plan.status?.phase ?? 'new'}`);
    },
    { timeoutMs: 120_000 },
  );
}

/**
 * Makes OLM resolve the Subscription's namespace again. OLM treats "constraints not satisfiable" as final
 * until something in the namespace changes: a resolution that ran while the CSV two upgrades back was still
 * being replaced stays failed after that CSV is gone. Touching the Subscription is what an admin does.
 */
export async function resolveAgain(rest: KubeRest, namespace: string, subscription: string): Promise<void> {
  await rest.request('PATCH', `${OLM_V1ALPHA1}/namespaces/${namespace}/subscriptions/${subscription}`, {
    body: { metadata: { annotations: { 'test.opkit.dev/resolve-again': new Date().toISOString() } } },
    contentType: 'application/merge-patch+json',
  });
}

/** Waits for a CSV to reach `Succeeded` and returns it; on time-out the error carries OLM's last reason. */
export async function waitForCsvSucceeded(
  rest: KubeRest,
  namespace: string,
  name: string,
  timeoutMs = 180_000,
): Promise<ClusterServiceVersion> {
  return eventually(
    `ClusterServiceVersion ${namespace}/${name} to succeed`,
    async () => {
      const csv = await getOptional<ClusterServiceVersion>(
        rest,
        `${OLM_V1ALPHA1}/namespaces/${namespace}/clusterserviceversions/${name}`,
      );
      if (csv?.status?.phase === 'Failed') {
        throw new Error(`${name} failed: ${csv.status.reason}: ${csv.status.message}`);
      }
      return csv?.status?.phase === 'Succeeded' ? csv : undefined;
    },
    { timeoutMs, intervalMs: 500 },
  );
}

/** Waits until an object is gone (404). */
export async function waitForDeletion(rest: KubeRest, path: string, timeoutMs = 120_000): Promise<void> {
  await eventually(`${path} to be deleted`, async () => (await getOptional(rest, path)) === undefined, {
    timeoutMs,
    intervalMs: 500,
  });
}

export async function getOptional<T>(rest: KubeRest, path: string): Promise<T | undefined> {
  try {
    return await rest.request<T>('GET', path);
  } catch (error) {
    if (error instanceof KubeApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** A bundle-unpack Job of OLM's catalog operator: the bundle image it pulled and whether it finished. */
export interface BundleUnpack {
  readonly bundleImage: string;
  readonly succeeded: boolean;
}

interface UnpackJob {
  readonly spec: {
    readonly template: {
      readonly spec: { readonly initContainers?: readonly { name: string; image: string }[] };
    };
  };
  readonly status?: { readonly succeeded?: number };
}

/**
 * The bundle-unpack Jobs OLM ran in a catalog's namespace (it keeps them five minutes after they finish):
 * their `pull` init container runs the bundle image, copying its manifests out with OLM's `cpb`.
 */
export async function bundleUnpacks(rest: KubeRest, catalogNamespace: string): Promise<BundleUnpack[]> {
  const jobs = await rest.request<{ items: UnpackJob[] }>(
    'GET',
    `/apis/batch/v1/namespaces/${catalogNamespace}/jobs`,
    { query: { labelSelector: 'operatorframework.io/bundle-unpack-ref' } },
  );
  return jobs.items.map((job) => ({
    bundleImage: job.spec.template.spec.initContainers?.find((c) => c.name === 'pull')?.image ?? '',
    succeeded: (job.status?.succeeded ?? 0) > 0,
  }));
}
