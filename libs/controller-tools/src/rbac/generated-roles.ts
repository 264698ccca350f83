import type { ResourcePolicyRule } from '@opkit/controller-runtime/rbac';

/** Raised for a rule that grants everything: generated roles never use wildcards. */
export class WildcardRuleError extends Error {
  readonly code = 'RBAC_WILDCARD';
}

/**
 * Merges rules the way controller-gen does for kubebuilder markers: rules with the same groups and
 * resources are joined, verbs and resources sorted, duplicates dropped, so the generated role is stable.
 */
export function mergePolicyRules(rules: readonly ResourcePolicyRule[]): ResourcePolicyRule[] {
  const byTarget = new Map<
    string,
    { apiGroups: string[]; resources: string[]; verbs: Set<string>; names?: string[] }
  >();
  for (const rule of rules) {
    for (const field of [rule.apiGroups, rule.resources, rule.verbs]) {
      if (field.includes('*'))
        throw new WildcardRuleError(`RBAC rule ${JSON.stringify(rule)} uses a wildcard`);
    }
    for (const group of rule.apiGroups) {
      for (const resource of rule.resources) {
        const key = `${group}|${resource}|${(rule.resourceNames ?? []).join(',')}`;
        const entry = byTarget.get(key) ?? {
          apiGroups: [group],
          resources: [resource],
          verbs: new Set<string>(),
          names: rule.resourceNames ? [...rule.resourceNames] : undefined,
        };
        for (const verb of rule.verbs) entry.verbs.add(verb);
        byTarget.set(key, entry);
      }
    }
  }
  // Then group resources of one API group that share the same verbs, as controller-gen prints them.
  const grouped = new Map<string, ResourcePolicyRule & { resources: string[] }>();
  for (const entry of byTarget.values()) {
    const verbs = [...entry.verbs].sort();
    const key = `${entry.apiGroups[0]}|${verbs.join(',')}|${entry.names?.join(',') ?? ''}`;
    const existing = grouped.get(key);
    if (existing) existing.resources.push(...entry.resources);
    else
      grouped.set(key, {
        apiGroups: entry.apiGroups,
        resources: [...entry.resources],
        verbs,
        ...(entry.names ? { resourceNames: entry.names } : {}),
      });
  }
  return [...grouped.values()]
    .map((r) => ({ ...r, resources: [...new Set(r.resources)].sort() }))
    .sort((a, b) => {
      // Code-unit order, not the locale's: the generated RBAC must not depend on LANG where it was made.
      const x = `${a.apiGroups[0]}/${a.resources[0]}`;
      const y = `${b.apiGroups[0]}/${b.resources[0]}`;
      return x < y ? -1 : x > y ? 1 : 0;
    });
}

/** A ClusterRole holding exactly the given rules. */
export function clusterRole(name: string, rules: readonly ResourcePolicyRule[]) {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name },
    rules: mergePolicyRules(rules),
  };
}
