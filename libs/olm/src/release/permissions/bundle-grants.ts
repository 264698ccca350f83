import { atomsOfRules, type PermissionAtom, type PermissionScope, type PolicyRule } from './rbac-atoms.js';

/**
 * Who holds rights a bundle grants: a service account the CSV or a shipped binding names, a user or group a
 * shipped binding names, or a shipped Role or ClusterRole that nothing in the bundle binds (its rights go to
 * whoever a cluster admin binds it to).
 */
export interface PermissionHolder {
  readonly kind: 'ServiceAccount' | 'User' | 'Group' | 'Role' | 'ClusterRole';
  readonly name: string;
}

/** A role a shipped binding grants that the bundle does not ship: its rules are the cluster's, unknown here. */
export interface ExternalRoleGrant {
  readonly kind: 'Role' | 'ClusterRole';
  readonly name: string;
  readonly scope: PermissionScope;
}

/** Every right one holder gets from a bundle. */
export interface HolderGrants {
  readonly holder: PermissionHolder;
  readonly atoms: readonly PermissionAtom[];
  readonly externalRoles: readonly ExternalRoleGrant[];
}

/** Why a shipped ClusterRole grants more than its own rules say. */
export type RoleAggregation =
  | { readonly kind: 'aggregation-rule' }
  | { readonly kind: 'aggregate-to'; readonly role: 'admin' | 'edit' | 'view' };

/** A shipped ClusterRole whose rights reach beyond its own rules, and why. */
export interface AggregatingRole {
  readonly name: string;
  readonly aggregation: RoleAggregation;
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/**
 * The rights a bundle's manifests grant, per holder in holder order: the CSV's `permissions` (namespaced) and
 * `clusterPermissions` (cluster-wide) per service account, and the bundle's own Roles and ClusterRoles through
 * the RoleBindings and ClusterRoleBindings it ships (a RoleBinding of a ClusterRole grants it namespaced).
 */
export function bundleGrants(objects: readonly Record<string, unknown>[]): HolderGrants[] {
  const grants = new Map<
    string,
    { holder: PermissionHolder; atoms: PermissionAtom[]; externalRoles: ExternalRoleGrant[] }
  >();
  const entryOf = (holder: PermissionHolder) => {
    const key = `${holder.kind}/${holder.name}`;
    let entry = grants.get(key);
    if (entry === undefined) {
      entry = { holder, atoms: [], externalRoles: [] };
      grants.set(key, entry);
    }
    return entry;
  };
  const grant = (holder: PermissionHolder, atoms: readonly PermissionAtom[]): void => {
    entryOf(holder).atoms.push(...atoms);
  };

  for (const csv of objects.filter((o) => o.kind === 'ClusterServiceVersion')) {
    const install = record(record(record(csv.spec).install).spec);
    // Installed for all namespaces, OLM grants the CSV's `permissions` cluster-wide: OLM v0 (its operator group
    // targeting every namespace) turns them into ClusterRoles and ClusterRoleBindings (ensureSingletonRBAC), and
    // OLM v1 installs a bundle that supports AllNamespaces that way by default.
    const namespacedScope = supportsAllNamespaces(csv) ? 'cluster' : 'namespace';
    for (const [field, scope] of [
      ['permissions', namespacedScope],
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
    const roleKind = ref.kind === 'Role' ? 'Role' : 'ClusterRole';
    const roleName = String(ref.name);
    const roleKey = `${roleKind}/${roleName}`;
    const rules = roles.get(roleKey);
    if (rules !== undefined) bound.add(roleKey);
    const scope = binding.kind === 'ClusterRoleBinding' ? 'cluster' : 'namespace';
    for (const subject of array(binding.subjects)) {
      const s = record(subject);
      if (
        (s.kind !== 'ServiceAccount' && s.kind !== 'User' && s.kind !== 'Group') ||
        typeof s.name !== 'string'
      )
        continue;
      const holder: PermissionHolder = { kind: s.kind, name: s.name };
      // A role the bundle does not ship (cluster-admin, admin, another operator's) grants what the cluster says.
      if (rules === undefined) entryOf(holder).externalRoles.push({ kind: roleKind, name: roleName, scope });
      else grant(holder, atomsOfRules(rules, scope));
    }
  }
  for (const [key, rules] of roles) {
    if (bound.has(key)) continue;
    const [kind, name] = splitKey(key);
    grant({ kind, name }, atomsOfRules(rules, kind === 'ClusterRole' ? 'cluster' : 'namespace'));
  }
  return [...grants.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, g]) => g);
}

/**
 * The shipped ClusterRoles that grant more than their own rules: one with an `aggregationRule` (the cluster fills
 * its rules in from every ClusterRole its selectors match) and one labelled to aggregate into the built-in
 * `admin`, `edit` or `view` (it widens those for everyone bound to them), in name order.
 */
export function aggregatingRoles(objects: readonly Record<string, unknown>[]): AggregatingRole[] {
  const found: AggregatingRole[] = [];
  for (const o of objects) {
    if (o.kind !== 'ClusterRole' || !isRbac(o)) continue;
    const name = nameOf(o);
    if (o.aggregationRule !== undefined && o.aggregationRule !== null) {
      found.push({ name, aggregation: { kind: 'aggregation-rule' } });
    }
    const labels = record(record(o.metadata).labels);
    for (const role of ['admin', 'edit', 'view'] as const) {
      if (labels[`${RBAC_GROUP}/aggregate-to-${role}`] === 'true') {
        found.push({ name, aggregation: { kind: 'aggregate-to', role } });
      }
    }
  }
  return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** How a report names a holder: `service account memcached-operator-controller-manager`, `group x`, `ClusterRole x`. */
export function holderText(holder: PermissionHolder): string {
  switch (holder.kind) {
    case 'ServiceAccount':
      return `service account ${holder.name}`;
    case 'User':
      return `user ${holder.name}`;
    case 'Group':
      return `group ${holder.name}`;
    default:
      return `${holder.kind} ${holder.name}`;
  }
}

function supportsAllNamespaces(csv: Record<string, unknown>): boolean {
  return array(record(csv.spec).installModes).some((m) => {
    const mode = record(m);
    return mode.type === 'AllNamespaces' && mode.supported === true;
  });
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
