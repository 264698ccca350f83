import type { TestProject } from 'vitest/node';
import { type LocalCluster, type StartClusterOptions, startCluster } from '../cluster.js';
import './index.js';

/** A cluster the projects of one vitest run share, with how many of them still use it. */
interface SharedCluster {
  readonly cluster: Promise<LocalCluster>;
  users: number;
}

/**
 * The run's shared clusters by their options. Vitest loads a global setup file once per project, each with
 * modules of its own, but all of them in its one main process: kept on `globalThis`, one cluster serves every
 * project of the run that asks for the same one (a machine runs one real node), and the last to tear down stops
 * it. Vitest runs every project's setup before the first test file and the teardowns after the last.
 */
function sharedClusters(): Map<string, SharedCluster> {
  const key = Symbol.for('opkit.test-cluster.shared-clusters');
  const holder = globalThis as { [key]?: Map<string, SharedCluster> };
  holder[key] ??= new Map();
  return holder[key];
}

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
    const clusters = sharedClusters();
    const key = JSON.stringify(options);
    let shared = clusters.get(key);
    if (shared === undefined) {
      shared = {
        cluster: startCluster({
          ...options,
          onProgress: (line) => {
            if (process.env.OPKIT_TEST_VERBOSE || /built|building|ready in/.test(line))
              process.stderr.write(`[cluster] ${line}\n`);
          },
        }),
        users: 0,
      };
      clusters.set(key, shared);
    }
    const entry = shared;
    entry.users++;
    const cluster = await entry.cluster.catch((error: unknown) => {
      // A failed start is not kept: each project reports it, and none waits on it again.
      if (clusters.get(key) === entry) clusters.delete(key);
      throw error;
    });
    project.provide('opkitKubeconfig', cluster.kubeconfigPath);
    project.provide('opkitRegistry', cluster.registry ?? '');
    return async () => {
      entry.users--;
      if (entry.users > 0) return;
      if (clusters.get(key) === entry) clusters.delete(key);
      await cluster.stop();
    };
  };
}

/** The cluster most suites share: control plane and a real node. */
export default sharedClusterSetup();
