export { memcachedCrd } from './crd.js';
export * from './schema.js';
export { DEFAULTS, type Memcached } from './types.js';
export { isMemcached, type ValidationProblem, validateMemcached } from './validate.js';
