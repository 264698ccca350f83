/** One `x-kubernetes-validations` entry of a CRD schema. */
export interface ValidationRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
  readonly fieldPath?: string;
  readonly optionalOldSelf?: boolean;
}

/** The parts of a CRD's structural OpenAPI schema that typing values and placing rules depend on. */
export interface CrdSchema {
  readonly type?: string;
  readonly format?: string;
  readonly nullable?: boolean;
  readonly default?: unknown;
  readonly required?: readonly string[];
  readonly maxItems?: number;
  readonly maxLength?: number;
  readonly maxProperties?: number;
  readonly properties?: Readonly<Record<string, CrdSchema>>;
  readonly items?: CrdSchema;
  readonly additionalProperties?: CrdSchema | boolean;
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
  readonly 'x-kubernetes-list-type'?: string;
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  readonly 'x-kubernetes-validations'?: readonly ValidationRule[];
}

/** The schema of a map's values, when `additionalProperties` gives one. */
export function mapValueSchema(schema: CrdSchema): CrdSchema | undefined {
  const additional = schema.additionalProperties;
  return typeof additional === 'object' ? additional : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
