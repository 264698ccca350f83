export {
  clusterRole,
  leaderElectionRules,
  mergePolicyRules,
  type PolicyRule,
  type ResourcePolicyRule,
  WildcardRuleError,
} from './policy-rules.js';
