import { atomsOfRules, type PermissionAtom, type PolicyRule } from './rbac-atoms.js';

/**
 * Who holds rights a bundle grants: a service account the CSV or a shipped binding names, or a shipped Role or
 * ClusterRole that nothing in the bundle binds (its rights go to whoever a cluster admin binds it to).
 */
export interface PermissionHolder {
  readonly kind: 'ServiceAccount' | 'Role' | 'ClusterRole';
  readonly name: string;
}

/** Every right one holder gets from a bundle. */
export interface HolderGrants {
  readonly holder: PermissionHolder;
  readonly atoms: readonly PermissionAtom[];
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/**
 * The rights a bundle's manifests grant, per holder in holder order: the CSV's `permissions` (namespaced) and
 * `clusterPermissions` (cluster-wide) per service account, and the bundle's own Roles and ClusterRoles through
 * the RoleBindings and ClusterRoleBindings it ships (a RoleBinding of a ClusterRole grants it namespaced).
 */
export function bundleGrants(objects: readonly Record<string, unknown>[]): HolderGrants[] {
  const grants = new Map<string, { holder: PermissionHolder; atoms: PermissionAtom[] }>();
  const grant = (holder: PermissionHolder, atoms: readonly PermissionAtom[]): void => {
    const key = `${holder.kind}/${holder.name}`;
    let entry = grants.get(key);
    if (entry === undefined) {
      entry = { holder, atoms: [] };
      grants.set(key, entry);
    }
    entry.atoms.push(...atoms);
  };

  for (const csv of objects.filter((o) => o.kind === 'ClusterServiceVersion')) {
    const install = record(record(record(csv.spec).install).spec);
    for (const [field, scope] of [
      ['permissions', 'namespace'],
      ['clusterPermissions', 'cluster'],
    ] as const) {
      for (const entry of array(install[field])) {
        const account = record(entry).serviceAccountName;
        if (typeof account !== 'string') continue;
        grant({ kind: 'ServiceAccount', name: account }, atomsOfRules(rulesOf(entry), scope));
      }
    }
  }

  const roles = new Map<string, readonly PolicyRule[]>();
  for (const o of objects) {
    if ((o.kind === 'Role' || o.kind === 'ClusterRole') && isRbac(o)) {
      roles.set(`${o.kind}/${nameOf(o)}`, rulesOf(o));
    }
  }
  const bound = new Set<string>();
  for (const binding of objects) {
    if ((binding.kind !== 'RoleBinding' && binding.kind !== 'ClusterRoleBinding') || !isRbac(binding))
      continue;
    const ref = record(binding.roleRef);
    const roleKey = `${String(ref.kind)}/${String(ref.name)}`;
    const rules = roles.get(roleKey);
    if (rules === undefined) continue;
    bound.add(roleKey);
    const scope = binding.kind === 'ClusterRoleBinding' ? 'cluster' : 'namespace';
    for (const subject of array(binding.subjects)) {
      const s = record(subject);
      if (s.kind === 'ServiceAccount' && typeof s.name === 'string') {
        grant({ kind: 'ServiceAccount', name: s.name }, atomsOfRules(rules, scope));
      }
    }
  }
  for (const [key, rules] of roles) {
    if (bound.has(key)) continue;
    const [kind, name] = splitKey(key);
    grant({ kind, name }, atomsOfRules(rules, kind === 'ClusterRole' ? 'cluster' : 'namespace'));
  }
  return [...grants.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, g]) => g);
}

/** How a report names a holder: `service account memcached-operator-controller-manager`, `ClusterRole x`. */
export function holderText(holder: PermissionHolder): string {
  return holder.kind === 'ServiceAccount'
    ? `service account ${holder.name}`
    : `${holder.kind} ${holder.name}`;
}

function splitKey(key: string): ['Role' | 'ClusterRole', string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash) === 'Role' ? 'Role' : 'ClusterRole', key.slice(slash + 1)];
}

function isRbac(o: Record<string, unknown>): boolean {
  return typeof o.apiVersion === 'string' && o.apiVersion.startsWith(`${RBAC_GROUP}/`);
}

function nameOf(o: Record<string, unknown>): string {
  const name = record(o.metadata).name;
  return typeof name === 'string' ? name : '';
}

function rulesOf(o: unknown): PolicyRule[] {
  return array(record(o).rules).map((r) => record(r) as PolicyRule);
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function array(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
