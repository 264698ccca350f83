import type { ValidationRule } from './schema.js';

/** What evaluating one rule at one place found, where it did not pass. */
export type RuleOutcome =
  /** The API server refuses the object: `message` is its field error (`spec.x: Invalid value: "integer": …`). */
  | {
      readonly kind: 'refused';
      readonly rule: ValidationRule;
      readonly path: string;
      readonly message: string;
    }
  /**
   * The object breaks its schema (a required field missing, a value of the wrong type): the API server refuses
   * it with `message` and checks none of its rules.
   */
  | { readonly kind: 'schema'; readonly path: string; readonly message: string }
  | { readonly kind: 'invalid'; readonly rule: ValidationRule; readonly reason: string }
  | { readonly kind: 'not-evaluated'; readonly rule: ValidationRule; readonly reason: string };
