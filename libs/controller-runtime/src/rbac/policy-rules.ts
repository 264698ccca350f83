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
