import type { TestProject } from 'vitest/node';
import { type StartClusterOptions, startCluster } from '../cluster.js';
import './index.js';

/** A started cluster and how many projects of the run still use it. */
interface SharedCluster {
  readonly started: Promise<{ kubeconfigPath: string; registry?: string; stop(): Promise<void> }>;
  users: number;
}

/**
 * The clusters of this vitest run, by their options: several projects of one run that name the same setup
 * (the `e2e` and `e2e-parallel` projects) share one cluster, as only one real node can run on a machine. Kept
 * on `globalThis` because each project loads its global setup files as modules of its own.
 */
const processGlobals = globalThis as { opkitSharedClusters?: Map<string, SharedCluster> };
processGlobals.opkitSharedClusters ??= new Map();
const sharedClusters = processGlobals.opkitSharedClusters;

/**
 * A vitest global setup: one local cluster for the whole run, shared by every test file of every project that
 * names it, and stopped when the last of them ends. With `OPKIT_TEST_KUBECONFIG` set, the tests run against
 * that existing cluster instead (like envtest's USE_EXISTING_CLUSTER), and nothing is started or stopped.
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
    const key = JSON.stringify(options);
    let shared = sharedClusters.get(key);
    if (shared === undefined) {
      shared = {
        users: 0,
        started: startCluster({
          ...options,
          onProgress: (line) => {
            if (process.env.OPKIT_TEST_VERBOSE || /built|building|ready in/.test(line))
              process.stderr.write(`[cluster] ${line}\n`);
          },
        }),
      };
      sharedClusters.set(key, shared);
    }
    shared.users += 1;
    const user = shared;
    let cluster: Awaited<SharedCluster['started']>;
    try {
      cluster = await user.started;
    } catch (error) {
      // The next project to ask tries again rather than being handed the same failure.
      if (sharedClusters.get(key) === user) sharedClusters.delete(key);
      throw error;
    }
    project.provide('opkitKubeconfig', cluster.kubeconfigPath);
    project.provide('opkitRegistry', cluster.registry ?? '');
    return async () => {
      user.users -= 1;
      if (user.users > 0) return;
      if (sharedClusters.get(key) === user) sharedClusters.delete(key);
      await cluster.stop();
    };
  };
}

/** The cluster most suites share: control plane and a real node. */
export default sharedClusterSetup();
