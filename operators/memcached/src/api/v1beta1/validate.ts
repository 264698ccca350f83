import { type SchemaProblem, schemaValidator } from '@opkit/controller-runtime';
import { memcachedSchema } from './schema.js';
import type { Memcached } from './types.js';

/** One problem found by {@link validateMemcached}: the field path (e.g. `spec.replicas`) and the reason. */
export type ValidationProblem = SchemaProblem;

/**
 * Checks a Memcached against the same schema the CRD carries, before it reaches the API server (e.g. samples
 * in CI). Returns the problems, empty when valid.
 */
export const validateMemcached = schemaValidator<Memcached>(memcachedSchema);

export function isMemcached(obj: unknown): obj is Memcached {
  return validateMemcached(obj).length === 0;
}
