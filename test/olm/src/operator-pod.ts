import type { KubeRest } from '@opkit/test-cluster';
import { eventually } from '@opkit/test-cluster/vitest';

interface Pod {
  readonly metadata: { readonly name: string; readonly deletionTimestamp?: string };
  readonly spec: { readonly containers: readonly { readonly image: string }[] };
  readonly status?: {
    readonly containerStatuses?: readonly { readonly ready: boolean; readonly imageID: string }[];
  };
}

interface DeploymentShape {
  readonly spec: {
    readonly selector: { readonly matchLabels: Readonly<Record<string, string>> };
    readonly template: { readonly spec: { readonly containers: readonly { readonly image: string }[] } };
  };
}

/** The pod OLM's Deployment runs the operator in: from the operator image, under OLM's ServiceAccount. */
export interface OperatorPod {
  readonly name: string;
  /**
   * The image the manager container runs, as the pod names it (the kubelet's status may name another tag of
   * the same image).
   */
  readonly image: string;
  /** What the kubelet pulled: `<repository>@<digest>`. */
  readonly imageID: string;
  /** The manager's log so far. */
  log(): Promise<string>;
}

/**
 * Waits for the ready pod of a Deployment's current template (after an upgrade, the pod of the new image,
 * not the one being replaced) and returns it.
 */
export async function operatorPod(
  rest: KubeRest,
  namespace: string,
  deployment: string,
  timeoutMs = 120_000,
): Promise<OperatorPod> {
  return eventually(
    `a ready pod of Deployment ${namespace}/${deployment}`,
    async () => {
      const d = await rest.request<DeploymentShape>(
        'GET',
        `/apis/apps/v1/namespaces/${namespace}/deployments/${deployment}`,
      );
      const image = d.spec.template.spec.containers[0]?.image;
      const selector = Object.entries(d.spec.selector.matchLabels)
        .map(([k, v]) => `${k}=${v}`)
        .join(',');
      const pods = await rest.request<{ items: Pod[] }>('GET', `/api/v1/namespaces/${namespace}/pods`, {
        query: { labelSelector: selector },
      });
      for (const pod of pods.items) {
        const status = pod.status?.containerStatuses?.[0];
        if (
          !image ||
          pod.metadata.deletionTimestamp ||
          !status?.ready ||
          pod.spec.containers[0]?.image !== image
        )
          continue;
        const name = pod.metadata.name;
        return {
          name,
          image,
          imageID: status.imageID,
          log: async () =>
            (await rest.getText(`/api/v1/namespaces/${namespace}/pods/${name}/log`, 10_000)).body,
        };
      }
      return undefined;
    },
    { timeoutMs, intervalMs: 500 },
  );
}

/** Adds the operator's last log lines to a failure, since the reason is usually there. */
export async function explainedBy<T>(operator: OperatorPod, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    const log = await operator.log().catch((e: Error) => `(no log: ${e.message})`);
    (error as Error).message += `\noperator log (last lines):\n${log.split('\n').slice(-30).join('\n')}`;
    throw error;
  }
}
