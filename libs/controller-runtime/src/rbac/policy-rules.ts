/** One RBAC rule of a (Cluster)Role: rbac.authorization.k8s.io/v1 PolicyRule. */
export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

/**
 * A rule on API resources, the only kind of rule generated roles hold (as controller-gen's resource markers):
 * its groups and resources are given, and it names no URLs.
 */
export type ResourcePolicyRule = PolicyRule & {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly nonResourceURLs?: never;
};

/** The rules a manager with leader election needs in its own namespace. */
export const leaderElectionRules: readonly ResourcePolicyRule[] = [
  {
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];

/**
 * The rules a manager with leader for life needs in its own namespace: the lock ConfigMap, its own Pod (the
 * lock's owner) and the holder Pod it deletes once evicted or preempted; events as with a Lease.
 */
export const leaderForLifeRules: readonly ResourcePolicyRule[] = [
  { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create', 'delete'] },
  { apiGroups: [''], resources: ['pods'], verbs: ['get', 'delete'] },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];

/**
 * The cluster-wide rule leader for life needs to hand over from a leader whose Node is NotReady (optional:
 * without it, such a leader keeps the lock until its Pod is gone).
 */
export const leaderForLifeNodeRules: readonly ResourcePolicyRule[] = [
  { apiGroups: [''], resources: ['nodes'], verbs: ['get'] },
];
