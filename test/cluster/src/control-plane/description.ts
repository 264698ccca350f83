import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ClusterError } from '../errors.js';
import type { ControlPlaneLayout } from './components.js';

/**
 * What a process other than the one that started a cluster needs to run one more of its control-plane
 * processes: the layout its command lines are built from and the programs. Paths and ports only; the keys
 * stay in their files.
 */
export interface ControlPlaneDescription {
  /** Bumped when the shape changes, so an older cluster is refused with a clear message. */
  readonly format: 1;
  /** `https://<address>:<port>` of the cluster's own API server. */
  readonly server: string;
  readonly layout: ControlPlaneLayout;
  readonly binaries: { readonly kubeApiServer: string };
}

/** The file's name inside the cluster's dir, beside the admin kubeconfig. */
const FILE = 'control-plane.json';

export function writeControlPlaneDescription(description: ControlPlaneDescription): void {
  writeFileSync(join(description.layout.dir, FILE), `${JSON.stringify(description, null, 2)}\n`, {
    mode: 0o600,
  });
}

/**
 * The description of the cluster whose admin kubeconfig is `kubeconfigPath`: a cluster keeps that kubeconfig
 * in its own dir (as `startCluster` and `opkit-cluster up` both write it), so the description lies beside it.
 */
export function readControlPlaneDescription(kubeconfigPath: string): ControlPlaneDescription {
  const file = join(dirname(kubeconfigPath), FILE);
  if (!existsSync(file)) {
    throw new ClusterError(
      'CLUSTER_NOT_DESCRIBED',
      `no ${FILE} beside ${kubeconfigPath}: pass the admin kubeconfig in the cluster's own dir, of a cluster started by this version of startCluster or opkit-cluster up`,
    );
  }
  const description = JSON.parse(readFileSync(file, 'utf8')) as Partial<ControlPlaneDescription>;
  if (description.format !== 1 || !description.layout || !description.binaries || !description.server) {
    throw new ClusterError(
      'CLUSTER_NOT_DESCRIBED',
      `${file} is not a control-plane description this version reads: restart the cluster`,
    );
  }
  return description as ControlPlaneDescription;
}
