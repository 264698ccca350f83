export { leaderElectionRules, type PolicyRule, type ResourcePolicyRule } from './policy-rules.js';
