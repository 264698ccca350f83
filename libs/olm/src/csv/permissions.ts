import type { PolicyRule } from '@opkit/controller-runtime/rbac';
import { byteOrder } from '../go-compat/go-format.js';
import type { StrategyDeploymentPermissions } from '../manifest/cluster-service-version.js';
import { deepCopy, isRecord, type Manifest } from '../manifest/manifest.js';

/** Result of folding RBAC into the CSV. */
export interface FoldedPermissions {
  /** Namespaced permissions: Roles and ClusterRoles bound by a RoleBinding to an operator service account. */
  readonly permissions: StrategyDeploymentPermissions[];
  /** ClusterRoles bound by a ClusterRoleBinding to an operator service account. */
  readonly clusterPermissions: StrategyDeploymentPermissions[];
  /** RBAC objects that stay bundle manifests: unbound roles, and bindings that still have other subjects. */
  readonly remaining: Manifest[];
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';

interface RoleRef {
  kind: string;
  name: string;
  apiGroup: string;
}

function roleRef(binding: Manifest): RoleRef {
  const ref = isRecord(binding.roleRef) ? binding.roleRef : {};
  return {
    kind: typeof ref.kind === 'string' ? ref.kind : '',
    name: typeof ref.name === 'string' ? ref.name : '',
    apiGroup: typeof ref.apiGroup === 'string' ? ref.apiGroup : '',
  };
}

function subjects(binding: Manifest): Record<string, unknown>[] {
  return (Array.isArray(binding.subjects) ? binding.subjects : []).filter(isRecord);
}

/** A role's rules as read, fields this code does not model included (the bundle validators check them). */
function rules(role: Manifest): PolicyRule[] {
  return (Array.isArray(role.rules) ? role.rules : [])
    .filter(isRecord)
    .map((r) => deepCopy(r) as Record<string, unknown> & PolicyRule);
}

/**
 * Folds RBAC into CSV permissions the way `operator-sdk generate bundle` does (collector
 * `SplitCSVPermissionsObjects` + `applyRoles`/`applyClusterRoles`): a Role or ClusterRole bound to one of the
 * operator's service accounts becomes part of that account's (cluster) permissions; the matched subjects
 * are removed from their bindings, and a binding left without subjects is dropped. Permissions are merged per
 * service account and sorted by its name; service accounts match by name (as upstream does).
 */
export function foldPermissions(
  objects: readonly Manifest[],
  serviceAccounts: ReadonlySet<string>,
): FoldedPermissions {
  const roles = objects.filter((o) => o.kind === 'Role' && o.apiVersion.startsWith(`${RBAC_GROUP}/`));
  const clusterRoles = objects.filter(
    (o) => o.kind === 'ClusterRole' && o.apiVersion.startsWith(`${RBAC_GROUP}/`),
  );
  const roleBindings = objects.filter((o) => o.kind === 'RoleBinding').map((b) => deepCopy(b));
  const clusterRoleBindings = objects.filter((o) => o.kind === 'ClusterRoleBinding').map((b) => deepCopy(b));
  const byName = (list: Manifest[]) => new Map(list.map((r) => [r.metadata.name ?? '', r]));
  const roleMap = byName(roles);
  const clusterRoleMap = byName(clusterRoles);

  const perms = new Map<string, PolicyRule[]>();
  const clusterPerms = new Map<string, PolicyRule[]>();
  const folded = new Set<Manifest>();

  const fold = (
    bindings: Manifest[],
    refKind: string,
    map: Map<string, Manifest>,
    into: Map<string, PolicyRule[]>,
  ) => {
    for (const binding of bindings) {
      const ref = roleRef(binding);
      const role = map.get(ref.name);
      if (role === undefined || ref.kind !== refKind || (ref.apiGroup !== '' && ref.apiGroup !== RBAC_GROUP))
        continue;
      const kept: Record<string, unknown>[] = [];
      for (const subject of subjects(binding)) {
        const name = typeof subject.name === 'string' ? subject.name : '';
        if (subject.kind === 'ServiceAccount' && serviceAccounts.has(name)) {
          into.set(name, [...(into.get(name) ?? []), ...rules(role)]);
          folded.add(role);
        } else {
          kept.push(subject);
        }
      }
      binding.subjects = kept;
    }
  };
  fold(roleBindings, 'Role', roleMap, perms);
  fold(roleBindings, 'ClusterRole', clusterRoleMap, perms);
  fold(clusterRoleBindings, 'ClusterRole', clusterRoleMap, clusterPerms);

  const toList = (map: Map<string, PolicyRule[]>): StrategyDeploymentPermissions[] =>
    [...map.entries()]
      .filter(([, r]) => r.length > 0)
      .sort(([a], [b]) => byteOrder(a, b))
      .map(([serviceAccountName, r]) => ({ serviceAccountName, rules: r }));

  const remaining: Manifest[] = [
    ...roles.filter((r) => !folded.has(r)),
    ...clusterRoles.filter((r) => !folded.has(r)),
    ...roleBindings.filter((b) => subjects(b).length > 0),
    ...clusterRoleBindings.filter((b) => subjects(b).length > 0),
  ];
  return { permissions: toList(perms), clusterPermissions: toList(clusterPerms), remaining };
}
