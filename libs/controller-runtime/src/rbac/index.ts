// @opkit/controller-runtime/rbac: rbac/v1's policy rule, the one declaration of it in the repository, and the
// rules leader election (Lease or for life) needs. Rendering rules into roles is build time (@opkit/controller-tools).
export {
  leaderElectionRules,
  leaderForLifeNodeRules,
  leaderForLifeRules,
  type PolicyRule,
  type ResourcePolicyRule,
} from './policy-rules.js';
