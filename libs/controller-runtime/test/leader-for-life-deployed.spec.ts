// Leader for life on a cluster with a real node and a garbage collector: the Memcached operator, deployed as
// users deploy it (`opkit deploy`; its manager.yaml sets POD_NAME from the downward API), then switched to
// two replicas with `--leader-election-mode=for-life` and the RBAC the mode needs. The leader Pod is deleted;
// the other replica (or the Deployment's replacement) must lead only after the old Pod is gone, and never two
// at once. Who leads is read from each Pod's log: the line `became the leader for life`, with its time.
import { join } from 'node:path';
import {
  type DeployedOperator,
  deployOperator,
  eventually,
  KubeApiError,
  KubeRest,
  testKubeConfig,
} from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { leaderForLifeNodeRules, leaderForLifeRules } from '../src/rbac/policy-rules.js';

const operatorDir = join(import.meta.dirname, '..', '..', '..', 'operators', 'memcached');
const namespace = 'memcached-operator-system';
const deploymentPath = `/apis/apps/v1/namespaces/${namespace}/deployments/memcached-operator-controller-manager`;
const serviceAccount = 'memcached-operator-controller-manager';
const NAME = 'memcached-operator-leader-for-life';
const LEADER_LINE = 'became the leader for life';

interface ManagerPod {
  readonly metadata: { readonly name: string; readonly uid: string };
  readonly status?: { readonly containerStatuses?: readonly { ready: boolean }[] };
}

const rest = new KubeRest(testKubeConfig());
let operator: DeployedOperator | undefined;

async function managerPods(): Promise<ManagerPod[]> {
  const pods = await rest.request<{ items: ManagerPod[] }>('GET', `/api/v1/namespaces/${namespace}/pods`, {
    query: { labelSelector: 'control-plane=controller-manager' },
  });
  return pods.items;
}

/** When `pod` logged that it leads, or undefined (not yet, or its log is gone). */
async function ledAt(pod: ManagerPod): Promise<number | undefined> {
  const log = await rest.getText(`/api/v1/namespaces/${namespace}/pods/${pod.metadata.name}/log`, 10_000);
  if (log.status !== 200) return undefined;
  for (const line of log.body.split('\n')) {
    if (!line.startsWith('{') || !line.includes(LEADER_LINE)) continue;
    const entry = JSON.parse(line) as { ts: string; msg: string };
    if (entry.msg === LEADER_LINE) return Date.parse(entry.ts);
  }
  return undefined;
}

/**
 * One look at the replicas: the Pods listed at `listedAt` (the list request's start: each listed Pod existed
 * at that moment or later) and those among them that had logged leading by then. A sample with two such Pods
 * means one led while another leader's Pod still existed.
 */
interface Sample {
  readonly listedAt: number;
  readonly pods: readonly ManagerPod[];
  readonly leaders: ReadonlyMap<string, number>;
}

async function sample(): Promise<Sample> {
  const listedAt = Date.now();
  const pods = await managerPods();
  const leaders = new Map<string, number>();
  for (const pod of pods) {
    const at = await ledAt(pod);
    if (at !== undefined && at <= listedAt) leaders.set(pod.metadata.uid, at);
  }
  return { listedAt, pods, leaders };
}

/** Samples every 300 ms until stopped, keeping each sample with more than one leader. */
function watchLeaders() {
  const overlaps: Sample[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const s = await sample();
      if (s.leaders.size > 1) overlaps.push(s);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  })();
  return {
    overlaps,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

async function ensureGone(path: string): Promise<void> {
  await rest.request('DELETE', path).catch((error: unknown) => {
    if (!(error instanceof KubeApiError && error.status === 404)) throw error;
  });
}

beforeAll(async () => {
  operator = await deployOperator({
    rest,
    kubeconfig: inject('opkitKubeconfig'),
    registry: inject('opkitRegistry'),
    operatorDir,
    repository: 'memcached-operator',
    namespace,
  });
  // The RBAC leader for life needs beyond the Lease's, as an operator that picks the mode would ship it.
  const subjects = [{ kind: 'ServiceAccount', name: serviceAccount, namespace }];
  await rest.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/roles`, {
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: NAME },
      rules: leaderForLifeRules,
    },
  });
  await rest.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/rolebindings`, {
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: NAME },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: NAME },
      subjects,
    },
  });
  await rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: NAME },
      rules: leaderForLifeNodeRules,
    },
  });
  await rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: NAME },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: NAME },
      subjects,
    },
  });
  // Scale to zero first: during a rolling update a Lease leader and a for-life leader hold different locks.
  const jsonPatch = 'application/json-patch+json';
  await rest.request('PATCH', deploymentPath, {
    body: [{ op: 'replace', path: '/spec/replicas', value: 0 }],
    contentType: jsonPatch,
  });
  await eventually('the Lease replica to be gone', async () => (await managerPods()).length === 0, {
    timeoutMs: 60_000,
  });
  await rest.request('PATCH', deploymentPath, {
    body: [
      {
        op: 'add',
        path: '/spec/template/spec/containers/0/args/-',
        value: '--leader-election-mode=for-life',
      },
      { op: 'replace', path: '/spec/replicas', value: 2 },
    ],
    contentType: jsonPatch,
  });
}, 600_000);

afterAll(async () => {
  await operator?.undeploy();
  await ensureGone(`/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${NAME}`);
  await ensureGone(`/apis/rbac.authorization.k8s.io/v1/clusterroles/${NAME}`);
  rest.close();
}, 300_000);

describe('leader for life with two replicas of the Memcached operator', () => {
  it('after the leader Pod is deleted, another replica leads only once that Pod is gone; never two at once', async () => {
    const watch = watchLeaders();
    try {
      const first = await eventually(
        'two ready replicas, one of them leading',
        async () => {
          const s = await sample();
          const ready = s.pods.filter((p) => p.status?.containerStatuses?.[0]?.ready);
          return ready.length === 2 && s.leaders.size === 1 ? s : undefined;
        },
        { timeoutMs: 180_000, intervalMs: 500 },
      );
      const [leaderUid] = [...first.leaders.keys()] as [string];
      const leader = first.pods.find((p) => p.metadata.uid === leaderUid);
      if (!leader) throw new Error('the leader is not among the listed pods'); // leaders come from the list
      // The standby has waited through at least one back-off step without leading.
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      expect((await sample()).leaders).toEqual(first.leaders);

      await rest.request('DELETE', `/api/v1/namespaces/${namespace}/pods/${leader.metadata.name}`);
      let lastSeenPresent = first.listedAt;
      const successor = await eventually(
        'another replica to lead',
        async () => {
          const s = await sample();
          if (s.pods.some((p) => p.metadata.uid === leaderUid)) lastSeenPresent = s.listedAt;
          const others = [...s.leaders].filter(([uid]) => uid !== leaderUid);
          return others.length === 1 ? others[0] : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 300 },
      );
      const [, successorLedAt] = successor;
      console.info(
        `leader for life: successor led ${successorLedAt - lastSeenPresent} ms after the old Pod was last seen`,
      );
      expect(successorLedAt).toBeGreaterThan(lastSeenPresent);
    } finally {
      await watch.stop();
    }
    expect(watch.overlaps, 'samples in which two replicas led').toEqual([]);
  });
});
