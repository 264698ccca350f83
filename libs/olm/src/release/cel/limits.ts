/**
 * Bounds on the work of evaluating a CRD's rules, so that a catalog cannot make the gate run without end: the
 * API server bounds rules by an estimated cost per call and per request; these play the same part here.
 */
export interface CelLimits {
  /** Characters of one `rule` or `messageExpression`. */
  readonly maxExpressionLength: number;
  /** Rules of one CRD version; a version with more is not evaluated. */
  readonly maxRulesPerVersion: number;
  /** Examples of one bundle evaluated. */
  readonly maxObjects: number;
  /** Characters of one example, as JSON. */
  readonly maxObjectLength: number;
  /**
   * Estimated steps of one rule on one value: its expression's size times the largest list, map or string it
   * may walk, raised to the depth of its nested comprehensions.
   */
  readonly maxEstimatedCost: number;
  /** Milliseconds for every evaluation of one call; what is left after it is reported not evaluated. */
  readonly timeBudgetMs: number;
}

export const DEFAULT_CEL_LIMITS: CelLimits = {
  maxExpressionLength: 4096,
  maxRulesPerVersion: 500,
  maxObjects: 200,
  maxObjectLength: 1_000_000,
  maxEstimatedCost: 10_000_000,
  timeBudgetMs: 5_000,
};
