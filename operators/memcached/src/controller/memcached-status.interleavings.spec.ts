import type { Deployment, Pod } from '@opkit/controller-runtime/kinds';
import { prng } from '@opkit/controller-runtime/testing';
import { describe, expect, it } from 'vitest';
import { MEMCACHED, type Memcached, type MemcachedStatus } from '../api/v1beta1/memcached.js';
import { conditionEventType, observedStatus } from './memcached-status.js';

// The reconciler reads the Deployment and the pods from caches that follow separate watches: each view lags
// the cluster by its own amount and never goes back. Its own Memcached it sees as it last wrote it (the cache
// has the manager's writes at once). These explorations replay a cluster's real sequence of states, let every
// reconcile see any such pair of views, and check what the status and its events say.

interface ClusterState {
  /** The Memcached's generation and the replicas its spec asks for. */
  readonly generation: number;
  readonly replicas: number;
  readonly deployment: Deployment;
  readonly pods: readonly Pod[];
}

function pod(name: string, ready: boolean, deleting = false): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    status: {
      podIP: `10.0.0.${name.charCodeAt(0) - 96}`,
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    },
  };
}

/** The Deployment of replicas `spec` at `generation`, its controller having counted `counted` of it. */
function deployment(
  generation: number,
  spec: number,
  counted?: { observed: number; replicas: number; updated: number; ready: number },
): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'sessions', generation },
    spec: { replicas: spec, selector: {}, template: {} },
    status: counted && {
      observedGeneration: counted.observed,
      replicas: counted.replicas,
      updatedReplicas: counted.updated,
      readyReplicas: counted.ready,
    },
  };
}

const counted = (observed: number, replicas: number, ready: number) => ({
  observed,
  replicas,
  updated: replicas,
  ready,
});

/** The Memcached walkthrough: 3 servers, resized to 2, back to 3. */
const walkthrough: readonly ClusterState[] = [
  { generation: 1, replicas: 3, deployment: deployment(1, 3), pods: [] },
  {
    generation: 1,
    replicas: 3,
    deployment: deployment(1, 3, counted(1, 3, 0)),
    pods: [pod('a', false), pod('b', false), pod('c', false)],
  },
  {
    generation: 1,
    replicas: 3,
    deployment: deployment(1, 3, counted(1, 3, 1)),
    pods: [pod('a', true), pod('b', false), pod('c', false)],
  },
  {
    generation: 1,
    replicas: 3,
    deployment: deployment(1, 3, counted(1, 3, 3)),
    pods: [pod('a', true), pod('b', true), pod('c', true)],
  },
  {
    generation: 2,
    replicas: 2,
    deployment: deployment(2, 2, counted(1, 3, 3)),
    pods: [pod('a', true), pod('b', true), pod('c', true)],
  },
  {
    generation: 2,
    replicas: 2,
    deployment: deployment(2, 2, counted(2, 3, 3)),
    pods: [pod('a', true), pod('b', true), pod('c', true, true)],
  },
  {
    generation: 2,
    replicas: 2,
    deployment: deployment(2, 2, counted(2, 2, 2)),
    pods: [pod('a', true), pod('b', true), pod('c', true, true)],
  },
  {
    generation: 2,
    replicas: 2,
    deployment: deployment(2, 2, counted(2, 2, 2)),
    pods: [pod('a', true), pod('b', true)],
  },
  {
    generation: 3,
    replicas: 3,
    deployment: deployment(3, 3, counted(2, 2, 2)),
    pods: [pod('a', true), pod('b', true)],
  },
  {
    generation: 3,
    replicas: 3,
    deployment: deployment(3, 3, counted(3, 2, 2)),
    pods: [pod('a', true), pod('b', true), pod('d', false)],
  },
  {
    generation: 3,
    replicas: 3,
    deployment: deployment(3, 3, counted(3, 3, 2)),
    pods: [pod('a', true), pod('b', true), pod('d', false)],
  },
  {
    generation: 3,
    replicas: 3,
    deployment: deployment(3, 3, counted(3, 3, 3)),
    pods: [pod('a', true), pod('b', true), pod('d', true)],
  },
];

/**
 * A new image for 2 servers, rolled out one at a time (maxSurge 1, maxUnavailable 0): c replaces a, then d
 * replaces b. `updated` counts the pods of the new template.
 */
const rollingUpdate: readonly ClusterState[] = (
  [
    [1, undefined, 2, 2, 2, [pod('a', true), pod('b', true)]],
    [2, 1, 2, 2, 2, [pod('a', true), pod('b', true)]],
    [2, 2, 3, 1, 2, [pod('a', true), pod('b', true), pod('c', false)]],
    [2, 2, 3, 1, 3, [pod('a', true), pod('b', true), pod('c', true)]],
    [2, 2, 2, 1, 2, [pod('a', true, true), pod('b', true), pod('c', true)]],
    [2, 2, 3, 2, 2, [pod('b', true), pod('c', true), pod('d', false)]],
    [2, 2, 3, 2, 3, [pod('b', true), pod('c', true), pod('d', true)]],
    [2, 2, 2, 2, 2, [pod('b', true, true), pod('c', true), pod('d', true)]],
    [2, 2, 2, 2, 2, [pod('c', true), pod('d', true)]],
  ] as const
).map(([generation, observed, replicas, updated, ready, pods]) => ({
  generation,
  replicas: 2,
  deployment: deployment(generation, 2, { observed: observed ?? 1, replicas, updated, ready }),
  pods,
}));

/** 3 servers serving; b stops being ready, the Deployment's controller counts it, b comes back and is counted. */
const lossAndRecovery: readonly ClusterState[] = [
  { pods: [pod('a', true), pod('b', true), pod('c', true)], ready: 3 },
  { pods: [pod('a', true), pod('b', false), pod('c', true)], ready: 3 },
  { pods: [pod('a', true), pod('b', false), pod('c', true)], ready: 2 },
  { pods: [pod('a', true), pod('b', true), pod('c', true)], ready: 2 },
  { pods: [pod('a', true), pod('b', true), pod('c', true)], ready: 3 },
].map(({ pods, ready }) => ({
  generation: 1,
  replicas: 3,
  deployment: deployment(1, 3, counted(1, 3, ready)),
  pods,
}));

interface Report {
  /** The cluster state each view came from when the reconcile ran at `at`. */
  readonly at: number;
  readonly views: string;
  readonly status: MemcachedStatus;
  readonly events: readonly string[];
}

/**
 * Reconciles at random moments of `states`, each seeing a Deployment and pods at most as new as the cluster
 * and never older than the last reconcile saw, and ends with one reconcile that sees it all as
 * it is. `caughtUpAt` forces such a reconcile at those moments too. Returns what each reconcile reported.
 */
function explore(states: readonly ClusterState[], random: () => number, caughtUpAt: readonly number[] = []) {
  const upTo = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const written: MemcachedStatus[] = [];
  const reports: Report[] = [];
  let seen = { deployment: 0, pods: 0 };
  const reconcile = (at: number, views: typeof seen) => {
    seen = views;
    const state = states[at] as ClusterState;
    const firstOfGeneration = states.findIndex((s) => s.generation === state.generation);
    // A Deployment of an older spec is applied again, and that reconcile reports nothing.
    if (views.deployment < firstOfGeneration) return;
    const before = written.at(-1);
    const cr: Memcached = {
      ...MEMCACHED,
      metadata: { name: 'sessions', namespace: 'cache', generation: state.generation },
      spec: { replicas: state.replicas },
      ...(before ? { status: before } : {}),
    };
    const status = observedStatus(cr, {
      deployment: (states[views.deployment] as ClusterState).deployment,
      pods: (states[views.pods] as ClusterState).pods,
      port: 11211,
    });
    const events = (status.conditions ?? []).flatMap((c) => {
      const previous = before?.conditions?.find((p) => p.type === c.type);
      // What patchStatusWithConditionEvents asks the policy about: a new status or a new reason.
      if (previous?.status === c.status && previous.reason === c.reason) return [];
      const type = conditionEventType(previous, c);
      return type ? [`${type} ${c.type}=${c.status} ${c.reason}: ${c.message}`] : [];
    });
    written.push(status);
    reports.push({ at, views: `deployment ${views.deployment}, pods ${views.pods}`, status, events });
  };
  for (let at = 0; at < states.length; at++) {
    for (let n = upTo(0, 2); n > 0; n--) {
      reconcile(at, {
        deployment: upTo(seen.deployment, at),
        pods: upTo(seen.pods, at),
      });
    }
    if (caughtUpAt.includes(at)) reconcile(at, { deployment: at, pods: at });
  }
  const last = states.length - 1;
  reconcile(last, { deployment: last, pods: last });
  return reports;
}

const SEEDS = Array.from({ length: 4_000 }, (_, i) => i + 1);

const available = (status: MemcachedStatus) => status.conditions?.find((c) => c.type === 'Available');

describe('the status of a Memcached, whatever its caches lag', () => {
  it('warns of nothing while it is resized down and back up, and ends serving the pods there are', () => {
    for (const seed of SEEDS) {
      const reports = explore(walkthrough, prng(seed));
      const warnings = reports.flatMap((r) =>
        r.events.filter((e) => e.startsWith('Warning')).map((e) => ({ ...r, e })),
      );
      expect(warnings, `seed ${seed}`).toEqual([]);
      const final = (reports.at(-1) as Report).status;
      expect(available(final)?.status, `seed ${seed}`).toBe('True');
      expect(final.nodes, `seed ${seed}`).toEqual(['a', 'b', 'd']);
    }
  });

  it('warns of nothing while a new image replaces its servers one at a time', () => {
    for (const seed of SEEDS) {
      const reports = explore(rollingUpdate, prng(seed), [0]);
      const events = reports.flatMap((r) => r.events);
      expect(events, `seed ${seed}`).toEqual([
        'Normal Available=True AllServersReady: 2 memcached servers ready',
      ]);
      expect((reports.at(-1) as Report).status.nodes, `seed ${seed}`).toEqual(['c', 'd']);
    }
  });

  it('warns once when a server is lost, says so until it is back, and announces its return', () => {
    for (const seed of SEEDS) {
      const reports = explore(lossAndRecovery, prng(seed), [0, 2]);
      const events = reports.flatMap((r) => r.events);
      expect(events, `seed ${seed}`).toEqual([
        'Normal Available=True AllServersReady: 3 memcached servers ready',
        'Warning Available=False ServersNotReady: 2 of 3 servers ready',
        'Normal Available=True AllServersReady: 3 memcached servers ready',
      ]);
      const counted = reports.find((r) => r.at === 2 && r.views === 'deployment 2, pods 2');
      expect(available((counted as Report).status)?.reason, `seed ${seed}`).toBe('ServersNotReady');
    }
  });
});
