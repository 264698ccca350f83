import { Ajv, type ErrorObject } from 'ajv';

/** One problem with an object: the field path (e.g. `spec.size`) and the reason. */
export interface SchemaProblem {
  readonly field: string;
  readonly message: string;
}

/** Checks an object against a CRD's schema, client-side; returns the problems, empty when valid. */
export type SchemaValidator = (obj: unknown) => SchemaProblem[];

const ajv = new Ajv({
  allErrors: true,
  strict: false,
  // Kubernetes formats the API server knows; their values are checked by the server, not here.
  formats: { int32: true, int64: true, 'date-time': true },
});

function describe(error: ErrorObject): SchemaProblem {
  const field = error.instancePath.replace(/^\//, '').replaceAll('/', '.') || '(root)';
  return { field, message: error.message ?? 'is invalid' };
}

/**
 * A validator for the same OpenAPI schema the CRD carries, so objects (samples, tests, CLI input) can be
 * checked before they reach the API server. ajv does not evaluate CEL (`x-kubernetes-validations`):
 * `celRules` re-states those rules for objects that pass the schema, with the CRD's messages.
 */
export function schemaValidator<T>(
  schema: object,
  celRules: (obj: T) => SchemaProblem[] = () => [],
): SchemaValidator {
  const check = ajv.compile(schema);
  return (obj) => {
    if (!check(obj)) {
      // An `anyOf` at the root only repeats its branches' errors.
      return (check.errors ?? []).filter((e) => e.keyword !== 'anyOf' || e.instancePath).map(describe);
    }
    return celRules(obj as T);
  };
}
