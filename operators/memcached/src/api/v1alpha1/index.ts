export { STASH_ANNOTATION, v1alpha1Spoke } from './conversion.js';
export * from './schema.js';
export { DEFAULTS, type Memcached, type MemcachedSpec } from './types.js';
export { isMemcached, type ValidationProblem, validateMemcached } from './validate.js';
