import { type SchemaProblem, schemaValidator } from '@opkit/controller-runtime';
import { OPERATOR_OWNED_CONFIG, redisClusterSchema } from './schema.js';
import type { RedisCluster } from './types.js';

/** One problem found by {@link validateRedisCluster}: the field path (e.g. `spec.size`) and the reason. */
export type ValidationProblem = SchemaProblem;

/** The CRD's CEL rules (`x-kubernetes-validations`) that ajv does not evaluate, with the same messages. */
function celProblems(obj: RedisCluster): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const spec = obj.spec;
  const keys = Object.keys(spec.config ?? {});
  if (!keys.every((k) => /^[a-z][a-z0-9-]*$/.test(k)))
    problems.push({
      field: 'spec.config',
      message: 'spec.config keys must be lower-case redis.conf directives',
    });
  if (Object.values(spec.config ?? {}).some((v) => v.includes('\n') || v.includes('\r')))
    problems.push({
      field: 'spec.config',
      message: 'spec.config values must be one line: a line break would start another directive',
    });
  for (const key of OPERATOR_OWNED_CONFIG) {
    if (keys.includes(key))
      problems.push({
        field: 'spec.config',
        message: `spec.config.${key} is managed by the operator and cannot be set`,
      });
  }
  return problems;
}

/**
 * Checks a RedisCluster against the same schema and rules the CRD carries, before it reaches the API server
 * (e.g. samples in CI). Returns the problems, empty when valid.
 */
export const validateRedisCluster = schemaValidator<RedisCluster>(redisClusterSchema, celProblems);

export function isRedisCluster(obj: unknown): obj is RedisCluster {
  return validateRedisCluster(obj).length === 0;
}
