export { defaultThreads, memoryMegabytes } from './derived.js';
export * from './schema.js';
export { DEFAULTS, type Memcached } from './types.js';
export { isMemcached, type ValidationProblem, validateMemcached } from './validate.js';
export { MEMORY_OVERHEAD_MI, memcachedDefaulter, memcachedValidator } from './webhooks.js';
