// The release gate of a catalog: what changed between two revisions of it, by meaning (diff), whether every
// installed version still reaches its channel head (upgrade paths), and on every upgrade edge whether the CRDs
// stay safe and which permissions the operator gains; each check reports findings a policy turns into a verdict.

export {
  type CelBundleContext,
  type CelLimits,
  type CrdSchema,
  celFindingsOfBundle,
  celFindingsOfEdge,
  DEFAULT_CEL_LIMITS,
  EvaluationBudget,
  type EvaluationMode,
  evaluateRules,
  type RuleOutcome,
  type ValidationRule,
} from './cel/index.js';
export { type CatalogEdge, catalogEdges, type EdgeBundle } from './edges.js';
export { compareFindings, type Finding, type FindingSeverity } from './findings.js';
