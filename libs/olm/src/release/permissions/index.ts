// The permission family of the release gate: the rights an operator gains or loses on each upgrade edge, read
// from the CSV's permissions and the RBAC objects its bundle ships, judged as escalations, namespaced rights
// made cluster-wide, widened rights, added and removed rules.
export {
  type AggregatingRole,
  aggregatingRoles,
  bundleGrants,
  type ExternalRoleGrant,
  type HolderGrants,
  holderText,
  type PermissionHolder,
  type RoleAggregation,
} from './bundle-grants.js';
export { isEscalation } from './escalation.js';
export { type PermissionRule, permissionChangesOfEdge } from './permission-changes.js';
export { permissionCheck } from './permission-check.js';
export { atomsOfRules, type PermissionAtom, type PermissionScope, type PolicyRule } from './rbac-atoms.js';
