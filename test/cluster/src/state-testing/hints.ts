/**
 * What the schema cannot tell the step generator about one field, keyed by its path under `spec`
 * (`replicas`, `resources.limits.cpu`; `*` stands for any map key or array index: `resources.limits.*`).
 */
export interface FieldHint {
  /** Valid values to choose from instead of generated ones (e.g. strings matching the field's pattern). */
  readonly values?: readonly unknown[];
  /** Keys to add to a map (`additionalProperties`), e.g. the resource names `cpu` and `memory`. */
  readonly keys?: readonly string[];
  /** A quantity's valid range (and the step between values); `refusedOutside`: the API refuses values beyond it. */
  readonly quantity?: {
    readonly min: string;
    readonly max: string;
    readonly step?: string;
    readonly refusedOutside?: boolean;
  };
  /** More values the API must refuse, naming this field (e.g. what only a webhook checks). */
  readonly invalid?: readonly unknown[];
  /** Leave the field alone: never add, change or remove it. */
  readonly skip?: boolean;
}

export type FieldHints = Readonly<Record<string, FieldHint>>;

/** The hint for a path, by its exact name first, then with the last segment as `*`. */
export function hintFor(hints: FieldHints, path: readonly (string | number)[]): FieldHint {
  const names = path.map(String);
  const exact = hints[names.join('.')];
  if (exact) return exact;
  return hints[[...names.slice(0, -1), '*'].join('.')] ?? {};
}
