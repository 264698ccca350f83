export {
  clusterRole,
  leaderElectionRules,
  mergePolicyRules,
  type PolicyRule,
  WildcardRuleError,
} from './policy-rules.js';
