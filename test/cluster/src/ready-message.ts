// What `opkit-cluster up` records about a cluster it started, and the lines it prints once that cluster is ready.

/** The state file of a cluster started by `up`, written by the `serve` process once the cluster is ready. */
export interface ClusterState {
  readonly name: string;
  readonly pid: number;
  /** The admin kubeconfig; under sudo, the invoking user's copy of it. */
  readonly kubeconfig: string;
  /** Under sudo: the directory of the user's kubeconfig copy, removed with the cluster. */
  readonly userKubeconfigDir?: string;
  readonly dir: string;
  readonly server: string;
  /** The registry and its Node base image, with a real node (older state files lack them). */
  readonly registry?: string;
  readonly baseImage?: string;
}

/**
 * What `up` prints once the cluster is ready: the kubeconfig, and with a real node the registry and the base
 * image operator images are built on (also recorded in the cluster for tools: kube-public/local-registry-hosting).
 */
export function readyLines(state: ClusterState): string[] {
  const lines = [`kubeconfig: ${state.kubeconfig}`];
  if (state.registry !== undefined) {
    lines.push(`registry: ${state.registry} (plain HTTP on this machine; the node pulls from it)`);
  }
  if (state.baseImage !== undefined) lines.push(`base image for operators: ${state.baseImage}`);
  lines.push(`try: export KUBECONFIG=${state.kubeconfig}; kubectl get nodes,pods -A`);
  if (state.registry !== undefined) {
    lines.push(
      'deploy an operator: nx run <project>:deploy, or opkit deploy --operator <dir> (builds its image on that base, pushes it, deploys it)',
    );
  }
  return lines;
}

/** What the ready lines say: `<kubeconfig>`, and with a real node `<registry>` and `<base image>`. */
export interface PrintedCluster {
  readonly kubeconfig: string;
  readonly registry?: string;
  readonly baseImage?: string;
}

/**
 * Reads the ready lines back from `up`'s output (the last of each, after the progress lines), for tools and
 * tests that run `opkit-cluster up`; undefined when there is no kubeconfig line.
 */
export function parseReadyLines(output: string): PrintedCluster | undefined {
  const last = (pattern: RegExp) => [...output.matchAll(pattern)].at(-1)?.[1];
  const kubeconfig = last(/^kubeconfig: (\S+)$/gm);
  if (kubeconfig === undefined) return undefined;
  const registry = last(/^registry: (\S+) \(/gm);
  const baseImage = last(/^base image for operators: (\S+)$/gm);
  return {
    kubeconfig,
    ...(registry === undefined ? {} : { registry }),
    ...(baseImage === undefined ? {} : { baseImage }),
  };
}
