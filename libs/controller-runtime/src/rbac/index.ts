// @opkit/controller-runtime/rbac (build time): RBAC policy rules and the ClusterRole rendered from them.
export {
  clusterRole,
  leaderElectionRules,
  mergePolicyRules,
  type PolicyRule,
  type ResourcePolicyRule,
  WildcardRuleError,
} from './policy-rules.js';
