import { Ajv, type ErrorObject } from 'ajv';
import { memcachedSchema } from './schema.js';
import type { Memcached } from './types.js';

const ajv = new Ajv({
  allErrors: true,
  strict: false,
  // Kubernetes formats the API server knows; values are checked by the server, not here.
  formats: { int32: true, int64: true, 'date-time': true },
});
const check = ajv.compile(memcachedSchema);

/** One problem found by {@link validateMemcached}: the field path (e.g. `spec.size`) and the reason. */
export interface ValidationProblem {
  readonly field: string;
  readonly message: string;
}

function describe(error: ErrorObject): ValidationProblem {
  const field = error.instancePath.replace(/^\//, '').replaceAll('/', '.') || '(root)';
  return { field, message: error.message ?? 'is invalid' };
}

/**
 * Checks a Memcached against the same schema the CRD carries, before it reaches the API server (e.g. samples
 * in CI). Returns the problems, empty when valid.
 */
export function validateMemcached(obj: unknown): ValidationProblem[] {
  if (check(obj)) return [];
  return (check.errors ?? []).filter((e) => e.keyword !== 'anyOf' || e.instancePath).map(describe);
}

export function isMemcached(obj: unknown): obj is Memcached {
  return validateMemcached(obj).length === 0;
}
