import type { TestProject } from 'vitest/node';
import { type StartClusterOptions, startCluster } from '../cluster.js';
import './index.js';

/**
 * A vitest global setup: one local cluster for the whole run, shared by every test file. With
 * `OPKIT_TEST_KUBECONFIG` set, the tests run against that existing cluster instead (like envtest's
 * USE_EXISTING_CLUSTER), and nothing is started or stopped.
 */
export function sharedClusterSetup(
  options: StartClusterOptions = {},
): (project: TestProject) => Promise<() => Promise<void>> {
  return async (project) => {
    const existing = process.env.OPKIT_TEST_KUBECONFIG;
    if (existing) {
      project.provide('opkitKubeconfig', existing);
      project.provide('opkitRegistry', process.env.OPKIT_TEST_REGISTRY ?? '');
      return async () => {};
    }
    const cluster = await startCluster({
      ...options,
      onProgress: (line) => {
        if (process.env.OPKIT_TEST_VERBOSE || /built|building|ready in/.test(line))
          process.stderr.write(`[cluster] ${line}\n`);
      },
    });
    project.provide('opkitKubeconfig', cluster.kubeconfigPath);
    project.provide('opkitRegistry', cluster.registry ?? '');
    return () => cluster.stop();
  };
}

/** The cluster most suites share: control plane and a real node. */
export default sharedClusterSetup();
