// Approving the InstallPlan that installs a given CSV and waiting for the CSV, with OLM's own words on failure.
import { CliError } from '../cli-error.js';
import { type Cluster, type Deadline, list, mergePatch, readOptional, waitFor } from './cluster.js';
import {
  type ClusterServiceVersion,
  type InstallPlan,
  OLM_V1ALPHA1,
  type OlmObject,
  type Subscription,
} from './olm-objects.js';

interface ContainerStatus {
  name: string;
  state?: {
    waiting?: { reason?: string; message?: string };
    terminated?: { reason?: string; message?: string; exitCode?: number };
  };
}
interface Pod extends OlmObject {
  status?: { initContainerStatuses?: ContainerStatus[]; containerStatuses?: ContainerStatus[] };
}
interface Job extends OlmObject {
  spec: { template: { spec: { initContainers?: { name: string; image: string }[] } } };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

/** Reasons a container of an unpack Job will not get past by itself. */
const STUCK = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'CrashLoopBackOff',
  'CreateContainerConfigError',
]);

/**
 * Why OLM's bundle-unpack Job for `bundleImage` (in the catalog's namespace) fails: the Job's Failed
 * condition, or a container of its pod that cannot start (an image the node cannot pull). `undefined` while
 * it is fine or not there.
 */
export async function unpackFailure(
  cluster: Cluster,
  catalogNamespace: string,
  bundleImage: string,
): Promise<string | undefined> {
  const jobs = await list<Job>(cluster, 'batch/v1', 'Job', {
    namespace: catalogNamespace,
    labelSelector: 'operatorframework.io/bundle-unpack-ref',
  });
  for (const job of jobs) {
    if (job.spec.template.spec.initContainers?.find((c) => c.name === 'pull')?.image !== bundleImage)
      continue;
    const where = `bundle unpack Job ${catalogNamespace}/${job.metadata.name} of ${bundleImage}`;
    const failed = job.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
    if (failed) return `${where} failed: ${failed.reason ?? ''}: ${failed.message ?? ''}`;
    const pods = await list<Pod>(cluster, 'v1', 'Pod', {
      namespace: catalogNamespace,
      labelSelector: `job-name=${job.metadata.name}`,
    });
    for (const pod of pods) {
      for (const c of [
        ...(pod.status?.initContainerStatuses ?? []),
        ...(pod.status?.containerStatuses ?? []),
      ]) {
        const waiting = c.state?.waiting;
        if (waiting?.reason !== undefined && STUCK.has(waiting.reason)) {
          return `${where}: container ${c.name} of pod ${pod.metadata.name}: ${waiting.reason}: ${waiting.message ?? ''}`;
        }
      }
    }
  }
  return undefined;
}

/** The failure OLM reports on a plan: phase Failed, a failed bundle lookup, or its retry message. */
export function planFailure(plan: InstallPlan): string | undefined {
  for (const lookup of plan.status?.bundleLookups ?? []) {
    const failed = lookup.conditions?.find((c) => c.type === 'BundleLookupFailed' && c.status === 'True');
    if (failed) return `unpacking ${lookup.path} failed: ${failed.reason ?? ''}: ${failed.message ?? ''}`;
  }
  if (plan.status?.phase === 'Failed') {
    const condition = plan.status.conditions?.find((c) => c.status === 'False' && c.message);
    return plan.status.message ?? condition?.message ?? 'phase Failed';
  }
  return undefined;
}

/** Whether OLM's bundle-unpack Job for the plan is still running. */
function unpacking(plan: InstallPlan): boolean {
  return (plan.status?.bundleLookups ?? []).some((l) =>
    l.conditions?.some((c) => c.type === 'BundleLookupPending' && c.status === 'True'),
  );
}

/**
 * Waits for the InstallPlan the Subscription points at to offer `csvName`, approves it, and waits until
 * the CSV is Succeeded, logging each state it passes through.
 *
 * @throws CliError naming the failed CSV's reason and message, the InstallPlan's failure, or the bundle-unpack
 *   Job's, or the last state seen when the deadline passes
 */
export async function approveAndWait(
  cluster: Cluster,
  options: {
    readonly subscription: string;
    readonly csvName: string;
    readonly bundleImage: string;
    readonly deadline: Deadline;
    readonly log: (line: string) => void;
  },
): Promise<ClusterServiceVersion> {
  const { namespace } = cluster;
  const { deadline, log } = options;
  const header = (kind: string, name: string) => ({
    apiVersion: OLM_V1ALPHA1,
    kind,
    metadata: { name, namespace },
  });
  const fail = async (plan: InstallPlan | undefined) => {
    const reason =
      (plan && planFailure(plan)) ?? (await unpackFailure(cluster, namespace, options.bundleImage));
    if (reason !== undefined) {
      throw new CliError('OPKIT_INSTALL_FAILED', `${options.csvName} cannot be installed: ${reason}`);
    }
  };
  const plan = await waitFor(
    `an InstallPlan of Subscription ${namespace}/${options.subscription} that installs ${options.csvName}`,
    deadline,
    async (state) => {
      const sub = await readOptional<Subscription>(cluster, header('Subscription', options.subscription));
      if (sub === undefined) {
        throw new CliError(
          'OPKIT_INSTALL_FAILED',
          `Subscription ${namespace}/${options.subscription} was deleted`,
        );
      }
      const name = sub.status?.installPlanRef?.name;
      const plan =
        name === undefined
          ? undefined
          : await readOptional<InstallPlan>(cluster, header('InstallPlan', name));
      await fail(plan);
      const conditions = (sub.status?.conditions ?? [])
        .filter((c) => c.status === 'True' && c.message)
        .map((c) => `${c.type}: ${c.message}`);
      state(
        `Subscription ${sub.status?.state ?? 'not resolved yet'}${plan ? `, InstallPlan ${plan.metadata.name} ${plan.status?.phase ?? 'new'}${unpacking(plan) ? ' (unpacking the bundle)' : ''}` : ''}${conditions.length > 0 ? ` (${conditions.join('; ')})` : ''}`,
      );
      if (plan?.spec.clusterServiceVersionNames.includes(options.csvName) !== true) return undefined;
      if (plan.spec.approved) return plan;
      // Approving before OLM wrote the plan's status races OLM's own update of it.
      return plan.status?.phase === 'RequiresApproval' ? plan : undefined;
    },
    { log },
  );
  if (!plan.spec.approved) {
    await mergePatch(cluster, header('InstallPlan', plan.metadata.name), { spec: { approved: true } });
    log(
      `approved InstallPlan ${namespace}/${plan.metadata.name} (${plan.spec.clusterServiceVersionNames.join(', ')})`,
    );
  }
  return waitFor(
    `ClusterServiceVersion ${namespace}/${options.csvName} to succeed`,
    deadline,
    async (state) => {
      const csv = await readOptional<ClusterServiceVersion>(
        cluster,
        header('ClusterServiceVersion', options.csvName),
      );
      const phase = csv?.status?.phase;
      if (phase === 'Failed') {
        throw new CliError(
          'OPKIT_CSV_FAILED',
          `ClusterServiceVersion ${namespace}/${options.csvName} failed: ${csv?.status?.reason ?? ''}: ${csv?.status?.message ?? ''}`,
        );
      }
      if (csv === undefined)
        await fail(await readOptional<InstallPlan>(cluster, header('InstallPlan', plan.metadata.name)));
      state(
        `ClusterServiceVersion ${namespace}/${options.csvName}: ${phase ?? 'not created yet'}${csv?.status?.message ? ` (${csv.status.message})` : ''}`,
      );
      return phase === 'Succeeded' ? csv : undefined;
    },
    { log },
  );
}
