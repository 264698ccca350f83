// CEL validation rules of CRDs (`x-kubernetes-validations`) evaluated as the Kubernetes API server would: on a
// bundle's own examples, and on every upgrade edge on the previous bundle's examples and as transitions from them.

export { celCheck } from './cel-check.js';
export { EvaluationBudget, type EvaluationMode, evaluateRules } from './evaluate.js';
export { type CelBundleContext, celFindingsOfBundle, celFindingsOfEdge } from './findings.js';
export { type CelLimits, DEFAULT_CEL_LIMITS } from './limits.js';
export type { RuleOutcome } from './outcome.js';
export type { CrdSchema, ValidationRule } from './schema.js';
