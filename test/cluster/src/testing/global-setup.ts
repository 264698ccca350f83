import type { TestProject } from 'vitest/node';
import { startCluster } from '../cluster.js';
import './index.js';

/**
 * Vitest global setup: one local control plane for the whole run, shared by every test file. With
 * `OPKIT_TEST_KUBECONFIG` set, the tests run against that existing cluster instead (like envtest's
 * USE_EXISTING_CLUSTER), and nothing is started or stopped.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const existing = process.env.OPKIT_TEST_KUBECONFIG;
  if (existing) {
    project.provide('opkitKubeconfig', existing);
    project.provide('opkitRegistry', process.env.OPKIT_TEST_REGISTRY ?? '');
    return async () => {};
  }
  const cluster = await startCluster({
    onProgress: (line) => {
      if (process.env.OPKIT_TEST_VERBOSE || /built|building|ready in/.test(line))
        process.stderr.write(`[cluster] ${line}\n`);
    },
  });
  project.provide('opkitKubeconfig', cluster.kubeconfigPath);
  project.provide('opkitRegistry', cluster.registry ?? '');
  return () => cluster.stop();
}
