import {
  type Static,
  type TInteger,
  type TObject,
  type TOptional,
  type TSchema,
  type TUnsafe,
  Type,
} from '@sinclair/typebox';

// The Kubernetes types an operator's TypeBox API schema is made of, written once as the API server's
// OpenAPI has them (as kubebuilder's markers produce them), so CRDs of every operator agree.

interface IntegerOptions {
  readonly minimum?: number;
  readonly maximum?: number;
  readonly default?: number;
  readonly description?: string;
}

/** An `int32` field. */
export function int32(options: IntegerOptions = {}): TInteger {
  return Type.Integer({ format: 'int32', ...options });
}

/** An `int64` field, e.g. a generation. */
export function int64(options: IntegerOptions = {}): TInteger {
  return Type.Integer({ format: 'int64', ...options });
}

/** `resource.Quantity`'s grammar, as the API server checks it (`1Gi`, `500m`, `1e3`). */
export const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

/** A `resource.Quantity`: an integer or a string in its grammar. Compare values with `quantitiesEqual`. */
export function quantity(description?: string): TUnsafe<string | number> {
  return Type.Unsafe<string | number>({
    'x-kubernetes-int-or-string': true,
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    pattern: QUANTITY_PATTERN,
    ...(description === undefined ? {} : { description }),
  });
}

/**
 * A `ResourceList` (resource name → quantity): `additionalProperties`, as CRD schemas have no
 * `patternProperties`.
 */
export const resourceList = Type.Unsafe<Record<string, string | number>>({
  type: 'object',
  additionalProperties: quantity(),
  description: 'Resource name to quantity.',
});

/** `ResourceRequirements` without claims: `limits` and `requests`. */
export function resourceRequirements(description: string): TObject<{
  limits: TOptional<typeof resourceList>;
  requests: TOptional<typeof resourceList>;
}> {
  return Type.Object(
    { limits: Type.Optional(resourceList), requests: Type.Optional(resourceList) },
    { description },
  );
}

/** `metav1.Condition`, with the API server's limits on each field. */
export const conditionSchema = Type.Object({
  type: Type.String({
    maxLength: 316,
    description: 'Type of condition: Available, Progressing or Degraded.',
  }),
  status: Type.Unsafe<'True' | 'False' | 'Unknown'>({ type: 'string', enum: ['True', 'False', 'Unknown'] }),
  reason: Type.String({ maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' }),
  message: Type.String({ maxLength: 32768 }),
  lastTransitionTime: Type.String({ format: 'date-time' }),
  observedGeneration: Type.Optional(int64({ minimum: 0 })),
});

/** `status.conditions`: a list map keyed by `type`, as `+listType=map` `+listMapKey=type` give it. */
export function conditionsSchema(description: string) {
  return Type.Array(conditionSchema, {
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['type'],
    description,
  });
}

/**
 * A custom resource's top-level schema as controller-gen writes it: `apiVersion`, `kind`, `metadata` (left to
 * the API server), the spec and an optional status.
 */
export function customResourceSchema<Spec extends TSchema, Status extends TSchema>(
  spec: Spec,
  status: Status,
  description: string,
) {
  return Type.Object(
    {
      apiVersion: Type.Optional(Type.String()),
      kind: Type.Optional(Type.String()),
      metadata: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object' })),
      spec,
      status: Type.Optional(status),
    },
    { description },
  );
}

/**
 * The `default` a schema declares, typed as the schema's values: lets code that reads objects the API server
 * did not default (from a fake client, or a cache older than the default) fall back to the one value the CRD
 * states. Throws when the schema declares none.
 */
export function schemaDefault<S extends TSchema>(schema: S): Static<S> {
  const value: unknown = schema.default;
  if (value === undefined) throw new Error('the schema declares no default');
  return value as Static<S>;
}
