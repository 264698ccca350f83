import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/** One problem with an object: the field path (e.g. `spec.size`) and the reason. */
export interface SchemaProblem {
  readonly field: string;
  readonly message: string;
}

/** Checks an object against a CRD's schema, client-side; returns the problems, empty when valid. */
export type SchemaValidator = (obj: unknown) => SchemaProblem[];

let ajv: Ajv | undefined;

/** The one ajv instance, made with the first schema compiled (see {@link schemaValidator}). */
function compile(schema: object): ValidateFunction {
  ajv ??= new Ajv({
    allErrors: true,
    strict: false,
    // Kubernetes formats the API server knows; their values are checked by the server, not here.
    formats: { int32: true, int64: true, 'date-time': true },
  });
  return ajv.compile(schema);
}

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
  // Compiled on first use: ajv generates and compiles code for the schema, which costs an operator that never
  // validates client-side (no webhooks) about 10 MiB of memory and a tenth of a second at start-up.
  let check: ValidateFunction | undefined;
  return (obj) => {
    check ??= compile(schema);
    if (!check(obj)) {
      // An `anyOf` at the root only repeats its branches' errors.
      return (check.errors ?? []).filter((e) => e.keyword !== 'anyOf' || e.instancePath).map(describe);
    }
    return celRules(obj as T);
  };
}
