import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, inject } from 'vitest';
import { KubeApiError, KubeRest } from '../kube/rest.js';
import { SANDBOX_IMAGE } from '../node/containerd.js';
import { CGROUP_ROOT } from '../node/host-claim.js';

export { freePort } from '../control-plane/ports.js';
export { KubeApiError, KubeRest } from '../kube/rest.js';
export { eventually } from '../polling.js';
export {
  PROMETHEUS_NAMESPACE,
  type PrometheusAlert,
  PrometheusApi,
  type PrometheusTarget,
} from '../prometheus/index.js';
export { type GuideCommand, guideCommands } from './guide-commands.js';
export { type DeployedOperator, deployOperator } from './operator-deploy.js';
export {
  type PushedOperatorImage,
  pushOperatorImage,
  pushReleasedOperatorImages,
} from './operator-image.js';
export {
  type InProcessOperator,
  type InProcessOperatorContext,
  type InProcessWebhookOperator,
  type InProcessWebhookServer,
  type OperatorOptions,
  type ServingCertificate,
  type TestCrd,
  type TestWebhookConfiguration,
  type UsedOperator,
  useCrds,
  useOperator,
  type WebhookOperatorOptions,
} from './operator-in-process.js';
export {
  type DeployedOperatorContext,
  describeOperatorProject,
  type OperatorProject,
} from './operator-project.js';
export { type CommandRun, outputOf, runWalkthrough, type WalkthroughOptions } from './walkthrough.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin kubeconfig of the cluster shared by this test run. */
    opkitKubeconfig: string;
    /** `127.0.0.1:<port>` of the shared cluster's image registry (`OPKIT_TEST_REGISTRY` for an existing one). */
    opkitRegistry: string;
  }
}

/**
 * How the API server words a request that RBAC denies — not other 403s, such as a write into a namespace
 * being deleted, which an operator watching every namespace meets as tests clean up.
 */
export const RBAC_DENIED = /is forbidden: User "[^"]+" cannot /;

/** The shared test cluster's admin credentials (from the global setup or `OPKIT_TEST_KUBECONFIG`). */
export function testKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(inject('opkitKubeconfig'));
  return kc;
}

export interface TestNamespace {
  /** Name of the namespace of the current test. */
  readonly name: string;
}

/**
 * A fresh namespace for every test, deleted after it (with everything in it). Pass labels, e.g. Pod
 * Security's `pod-security.kubernetes.io/enforce: restricted`.
 */
export function useTestNamespace(
  options: { prefix?: string; labels?: Record<string, string> } = {},
): TestNamespace {
  const state = { name: '' };
  let rest: KubeRest | undefined;
  beforeEach(async () => {
    rest ??= new KubeRest(testKubeConfig());
    state.name = `${options.prefix ?? 'test'}-${randomBytes(4).toString('hex')}`;
    await rest.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: state.name, labels: options.labels } },
    });
    // Pods need the namespace's default ServiceAccount, which the controller-manager creates.
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await rest.request('GET', `/api/v1/namespaces/${state.name}/serviceaccounts/default`);
        break;
      } catch (error) {
        if (!(error instanceof KubeApiError && error.status === 404) || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });
  afterEach(async () => {
    if (!rest || !state.name) return;
    await rest.request('DELETE', `/api/v1/namespaces/${state.name}`).catch(() => {});
  });
  return state;
}

/**
 * A pod that passes Pod Security "restricted" and that no node runs (no node carries its selector): an object
 * that only an operator's pod watch can see, for tests of what that watch selects.
 */
export function unscheduledPod(
  name: string,
  namespace: string,
  labels: Readonly<Record<string, string>> = {},
) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { ...labels } },
    spec: {
      nodeSelector: { 'opkit.example.com/no-such-node': 'true' },
      securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        {
          name: 'main',
          image: SANDBOX_IMAGE,
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
        },
      ],
    },
  };
}

/**
 * The host processes of a pod's containers on the real node (not its sandbox's pause), found through the
 * kubelet's pod cgroup `pod<uid>`: pid and argv, for tests that crash or inspect a container's process.
 */
export function podProcesses(podUid: string): { pid: number; argv: string[] }[] {
  const root = join('/sys/fs/cgroup/pids', CGROUP_ROOT.slice(1), 'kubepods');
  const podDir = findDirectory(root, `pod${podUid}`, 3);
  if (!podDir) return [];
  const found: { pid: number; argv: string[] }[] = [];
  for (const entry of readdirSync(podDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    let pids: number[] = [];
    try {
      pids = readFileSync(join(podDir, entry.name, 'cgroup.procs'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(Number);
    } catch {
      continue; // the container ended meanwhile
    }
    for (const pid of pids) {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
        if (argv[0] !== '/pause') found.push({ pid, argv });
      } catch {
        // the process ended meanwhile
      }
    }
  }
  return found;
}

function findDirectory(dir: string, name: string, depth: number): string | undefined {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return undefined;
  }
  if (entries.includes(name)) return join(dir, name);
  if (depth === 0) return undefined;
  for (const entry of entries) {
    if (!entry.startsWith('pod') && /^(besteffort|burstable)$/.test(entry)) {
      const hit = findDirectory(join(dir, entry), name, depth - 1);
      if (hit) return hit;
    }
  }
  return undefined;
}
