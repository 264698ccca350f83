// @opkit/controller-runtime/rbac: rbac/v1's policy rule, the one declaration of it in the repository, and the
// rules leader election needs. Rendering rules into roles is build time (@opkit/controller-tools).
export { leaderElectionRules, type PolicyRule, type ResourcePolicyRule } from './policy-rules.js';
