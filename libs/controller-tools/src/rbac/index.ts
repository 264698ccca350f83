// The roles generated from the rules controllers declare: merged and laid out as controller-gen prints them.
export { clusterRole, mergePolicyRules, WildcardRuleError } from './generated-roles.js';
